import GRDB

/// Tells the change feed when a commit of this process has grown the change log.
///
/// It looks at the log's newest revision after each commit rather than at the rows a
/// statement wrote: the completion path appends its changes through SQLite's C API
/// (``DirectStatement``), which GRDB's per-statement observation never sees.
///
/// A group commit of completions is told differently: the store holds the observer while
/// it commits, hands the completions' answers on, and then releases it. The observer then
/// reads the new changes itself, on the writer's connection, and hands them to the feed:
/// the answers do not wait for the feed, and the feed does not read the log on a thread of
/// its own (unless more completions wait to be committed: then the feed is only woken, and
/// reads beside the next commit).
///
/// Sendable because it is only touched on the writer's queue, where GRDB calls it and where
/// it is added, held, released and removed.
final class ChangeLogObserver: TransactionObserver, @unchecked Sendable {
    /// Wakes the feed to read the log.
    private let grown: @Sendable () -> Void
    /// Hands the feed the changes read here: every change after `revision`, in order.
    private let read: @Sendable (_ revision: Int, _ changes: [StoreChange]) -> Void
    /// The newest revision at the last commit told.
    private var newest: Int
    /// Whether commits wait for ``release(_:busy:)`` to be told.
    private var holding = false
    /// Whether a commit came while holding.
    private var committedWhileHeld = false

    init(newest: Int, grown: @escaping @Sendable () -> Void, read: @escaping @Sendable (Int, [StoreChange]) -> Void) {
        self.newest = newest
        self.grown = grown
        self.read = read
    }

    /// No per-row events: only commits matter.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        guard !holding else {
            committedWhileHeld = true
            return
        }
        tellGrowth(db)
    }

    /// Wakes the feed if the log has grown. A log that cannot be read here is read at the
    /// feed's next poll.
    private func tellGrowth(_ db: Database) {
        guard let revision = try? CarePlanStore.revision(db), revision > newest else { return }
        newest = revision
        grown()
    }

    func databaseDidRollback(_ db: Database) {}

    /// Keeps the commits that follow until ``release(_:busy:)``.
    func hold() {
        holding = true
    }

    /// Hands the feed the changes committed while held, read on `db` (the writer's
    /// connection); or, when the writer has more to commit (`busy`), only wakes the feed,
    /// whose read then runs beside the next commit instead of before it. More than the feed
    /// reads at a time, or a log that cannot be read here, wakes the feed to read them.
    func release(_ db: Database, busy: Bool) {
        holding = false
        guard committedWhileHeld else { return }
        committedWhileHeld = false
        guard !busy else { return tellGrowth(db) }
        do {
            let changes = try CarePlanStore.changes(db, after: newest, activityID: nil, limit: StoreChangeFeed.pageSize)
            guard let last = changes.last?.revision else { return }
            let after = newest
            newest = last
            read(after, changes)
            if changes.count == StoreChangeFeed.pageSize { grown() }
        } catch {
            grown()
        }
    }
}

extension CarePlanStore {
    /// Observes this process's commits to the change log until ``stopObserving(_:)``:
    /// `grown` is called when the feed should read the log, `read` with changes read for
    /// it (see ``ChangeLogObserver``).
    func observeChangeLog(
        grown: @escaping @Sendable () -> Void, read: @escaping @Sendable (Int, [StoreChange]) -> Void
    ) async throws -> ChangeLogObserver {
        // Added on GRDB's writer thread, where it starts at once (elsewhere it would block for
        // a write access).
        try await pool.writeWithoutTransaction { db in
            let observer = ChangeLogObserver(newest: try Self.revision(db), grown: grown, read: read)
            db.add(transactionObserver: observer, extent: .observerLifetime)
            changeLogObservers.withLock { $0[ObjectIdentifier(observer)] = observer }
            return observer
        }
    }

    /// Stops `observer`, on the writer's thread.
    func stopObserving(_ observer: ChangeLogObserver) {
        pool.asyncWriteWithoutTransaction { [self] db in
            db.remove(transactionObserver: observer)
            changeLogObservers.withLock { $0[ObjectIdentifier(observer)] = nil }
        }
    }

    /// Runs `commit` (on the writer's queue) with the change log's observers held, and
    /// releases them once it returns: a group commit hands its answers on first.
    func holdingChangeLogObservers(_ db: Database, _ commit: () -> Void) {
        let observers = changeLogObservers.withLock { Array($0.values) }
        for observer in observers { observer.hold() }
        commit()
        let busy = completions.waiting > 0
        for observer in observers { observer.release(db, busy: busy) }
    }
}
