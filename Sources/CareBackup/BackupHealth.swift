import CarePlan
import Foundation
import Synchronization
import Clocks
import Waiting

/// How the primary's scheduled backups stand, for the people who must hear when they fail:
/// the care app shows it on every page, household devices are sent it (protocol section 24).
public final class BackupHealth: Sendable {
    /// Backups failing: since the first failure in a row, the last reason, the next try.
    public typealias Trouble = BackupTrouble
    /// The last round's outcome.
    public typealias Status = BackupStatus

    private let state = Mutex(Status.working(lastMade: nil))
    private let watchers = Broadcast<Status>()

    public init() {}

    public var status: Status { state.withLock { $0 } }

    /// Takes a round's `event`, which happened at `now`.
    public func record(_ event: ScheduledBackups.Event, at now: Date) {
        switch event {
        case .made(_, let manifest): made(at: manifest.createdAt)
        case .failed(let reason, let cause, let retryIn):
            failed(reason: reason, cause: cause, retryAt: now.addingTimeInterval(retryIn.inSeconds), at: now)
        }
    }

    /// A backup was made at `date`.
    public func made(at date: Date) {
        update { _ in .working(lastMade: date) }
    }

    /// A backup failed at `now` for `reason` (its `cause`), to be tried again at `retryAt`:
    /// failing since the first failure in a row.
    public func failed(reason: String, cause: BackupFailureCause, retryAt: Date, at now: Date) {
        update { status in
            .failing(Trouble(
                since: status.trouble?.since ?? now, reason: reason, cause: cause, retryAt: retryAt, lastMade: status.lastMade))
        }
    }

    private func update(_ change: (Status) -> Status) {
        // Sent under the lock: every watcher gets the statuses in the order they were set.
        state.withLock { status in
            status = change(status)
            watchers.send(status)
        }
    }

    /// The status now, then each new one, until the consumer stops iterating.
    public func updates() -> AsyncStream<Status> {
        state.withLock { watchers.subscribe(startingWith: $0) }
    }
}
