import Synchronization
import SyncProtocol

/// The primary's open connections, so that it can send to companions of a role (reminders
/// to watches) and say Goodbye to each when shutting down.
final class ConnectionRegistry: Sendable {
    typealias Goodbye = @Sendable (Caresync_V1_GoodbyeReason, String) async -> Void
    typealias Send = @Sendable (Caresync_V1_Envelope) async -> Void

    private struct Entry {
        var role: Caresync_V1_Role
        var send: Send
        var goodbye: Goodbye
    }

    private let entries = Mutex<(next: Int, all: [Int: Entry], closed: Bool)>((0, [:], false))

    /// Registers an open connection; `nil` once the primary has started saying goodbye.
    func register(role: Caresync_V1_Role, send: @escaping Send, goodbye: @escaping Goodbye) -> Int? {
        entries.withLock { entries in
            guard !entries.closed else { return nil }
            entries.next += 1
            entries.all[entries.next] = Entry(role: role, send: send, goodbye: goodbye)
            return entries.next
        }
    }

    /// Sends `envelope` to every connection of `role`.
    func broadcast(_ envelope: Caresync_V1_Envelope, to role: Caresync_V1_Role) async {
        let sends = entries.withLock { $0.all.values.filter { $0.role == role }.map(\.send) }
        await withDiscardingTaskGroup { group in
            for send in sends { group.addTask { await send(envelope) } }
        }
    }

    func remove(_ id: Int) {
        _ = entries.withLock { $0.all.removeValue(forKey: id) }
    }

    var count: Int { entries.withLock { $0.all.count } }

    /// Tells every connection why it is closing and closes it.
    func sayGoodbye(_ reason: Caresync_V1_GoodbyeReason, _ detail: String) async {
        let goodbyes = entries.withLock { entries in
            entries.closed = true
            return entries.all.values.map(\.goodbye)
        }
        await withDiscardingTaskGroup { group in
            for goodbye in goodbyes { group.addTask { await goodbye(reason, detail) } }
        }
    }
}
