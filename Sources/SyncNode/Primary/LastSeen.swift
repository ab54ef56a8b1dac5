import CareCore
import CarePlanStore
import Foundation
import Logging
import Synchronization

/// When each device was last seen, noted in memory as companions connect and disconnect and
/// written to the store in one commit ``interval`` after the first note not yet written (and
/// when the primary stops): a connection costs no commit of its own, a thousand companions
/// reconnecting at once cost one, and a primary where nobody comes or goes does not wake for
/// it. `caresync devices` may show a time up to ``interval`` old.
final class LastSeen: Sendable {
    /// How long a noted time waits to be written with those that follow it.
    let interval: Duration
    private let pending = Mutex<[String: Date]>([:])
    private let noted = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(interval: Duration) {
        self.interval = interval
    }

    /// Notes that `device` was seen at `date`.
    func note(_ device: String, at date: Date) {
        pending.withLock { $0[device] = max($0[device] ?? date, date) }
        noted.continuation.yield()
    }

    /// Writes what was noted since the last write; on failure keeps it for the next.
    func write(to store: CarePlanStore, logger: Logger) async {
        let seen = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        do {
            try await CareCore(store: store).access.noteSeen(seen)
        } catch {
            pending.withLock { pending in pending.merge(seen) { max($0, $1) } }
            guard !Task.isCancelled else { return }  // stopping: the last write follows
            logger.warning("could not record when devices were seen", metadata: ["error": "\(error)"])
        }
    }

    /// Writes what was noted, ``interval`` after a note, until cancelled.
    func run(to store: CarePlanStore, logger: Logger) async {
        for await _ in noted.stream {
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            await write(to: store, logger: logger)
        }
    }
}
