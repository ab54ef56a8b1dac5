import Synchronization
import SyncProtocol

/// The primary's open connections, so that shutting down can say Goodbye to each.
final class ConnectionRegistry: Sendable {
    typealias Goodbye = @Sendable (Caresync_V1_GoodbyeReason, String) async -> Void

    private let entries = Mutex<(next: Int, goodbyes: [Int: Goodbye], closed: Bool)>((0, [:], false))

    /// Registers an open connection; `nil` once the primary has started saying goodbye.
    func register(_ goodbye: @escaping Goodbye) -> Int? {
        entries.withLock { entries in
            guard !entries.closed else { return nil }
            entries.next += 1
            entries.goodbyes[entries.next] = goodbye
            return entries.next
        }
    }

    func remove(_ id: Int) {
        _ = entries.withLock { $0.goodbyes.removeValue(forKey: id) }
    }

    var count: Int { entries.withLock { $0.goodbyes.count } }

    /// Tells every connection why it is closing and closes it.
    func sayGoodbye(_ reason: Caresync_V1_GoodbyeReason, _ detail: String) async {
        let goodbyes = entries.withLock { entries in
            entries.closed = true
            return Array(entries.goodbyes.values)
        }
        await withDiscardingTaskGroup { group in
            for goodbye in goodbyes { group.addTask { await goodbye(reason, detail) } }
        }
    }
}
