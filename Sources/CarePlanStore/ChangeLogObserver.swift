import GRDB

/// Tells the change feed when a commit of this process has grown the change log.
///
/// It looks at the log's newest revision after each commit rather than at the rows a
/// statement wrote: the completion path appends its changes through SQLite's C API
/// (``DirectStatement``), which GRDB's per-statement observation never sees. Sendable
/// because GRDB calls it only on the writer's queue, where it is added and removed too.
final class ChangeLogObserver: TransactionObserver, @unchecked Sendable {
    private let grown: @Sendable () -> Void
    /// The newest revision at the last commit (only touched on the writer's thread).
    private var newest: Int

    init(newest: Int, grown: @escaping @Sendable () -> Void) {
        self.newest = newest
        self.grown = grown
    }

    /// No per-row events: only commits matter.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        // A log that cannot be read here is read at the feed's next poll.
        guard let revision = try? CarePlanStore.revision(db), revision > newest else { return }
        newest = revision
        grown()
    }

    func databaseDidRollback(_ db: Database) {}
}
