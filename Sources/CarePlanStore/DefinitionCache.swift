import CarePlan
import Synchronization

/// Decoded activity definitions by (activity, version). Versions never change once
/// written, so entries stay valid for every process sharing the file.
final class DefinitionCache: Sendable {
    private struct Key: Hashable {
        var activityID: String
        var version: Int
    }

    private let entries = Mutex<[Key: Activity]>([:])

    func activity(_ id: String, version: Int, decode: () throws -> Activity) rethrows -> Activity {
        let key = Key(activityID: id, version: version)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let activity = try decode()
        entries.withLock { $0[key] = activity }
        return activity
    }
}
