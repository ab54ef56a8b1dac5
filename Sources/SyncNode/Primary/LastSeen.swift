import CarePlanStore
import Foundation
import Logging
import Synchronization

/// When each device was last seen, noted in memory as companions connect and disconnect and
/// written to the store in one commit at most every ``interval`` (and when the primary
/// stops): a connection costs no commit of its own, and a thousand companions reconnecting
/// at once cost one. `caresync devices` may show a time up to ``interval`` old.
final class LastSeen: Sendable {
    /// How often noted times are written.
    let interval: Duration
    private let pending = Mutex<[String: Date]>([:])

    init(interval: Duration) {
        self.interval = interval
    }

    /// Notes that `device` was seen at `date`.
    func note(_ device: String, at date: Date) {
        pending.withLock { $0[device] = max($0[device] ?? date, date) }
    }

    /// Writes what was noted since the last write; on failure keeps it for the next.
    func write(to store: CarePlanStore, logger: Logger) async {
        let seen = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        do {
            try await store.devices.recordSeen(seen)
        } catch {
            pending.withLock { pending in pending.merge(seen) { max($0, $1) } }
            guard !Task.isCancelled else { return }  // stopping: the last write follows
            logger.warning("could not record when devices were seen", metadata: ["error": "\(error)"])
        }
    }

    /// Writes every ``interval`` until cancelled.
    func run(to store: CarePlanStore, logger: Logger) async {
        while (try? await Task.sleep(for: interval)) != nil {
            await write(to: store, logger: logger)
        }
    }
}
