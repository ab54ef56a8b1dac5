import CarePlan
import GRDB

extension CarePlanStore {
    /// Changes after `revision`, oldest first; optionally of one activity, at most `limit`.
    public func history(
        after revision: Int = 0, activityID: String? = nil, limit: Int? = nil
    ) async throws(CarePlanStoreError) -> [StoreChange] {
        try await read { db in try Self.changes(db, after: revision, activityID: activityID, limit: limit) }
    }

    /// The newest revision and, in the same read, up to `limit` changes after `revision`
    /// (none without a revision): all a follower of the change log needs at each look.
    public func newestAndChanges(
        after revision: Int?, limit: Int
    ) async throws(CarePlanStoreError) -> (newest: Int, changes: [StoreChange]) {
        try await read { db in
            let newest = try Self.revision(db)
            guard let revision, revision < newest else { return (newest, []) }
            return (newest, try Self.changes(db, after: revision, activityID: nil, limit: limit))
        }
    }

    /// Returns once no other process holds the store's write lock. Another process's write
    /// is seen in its files before its commit can be read (SQLite syncs the log, then makes
    /// the commit visible, then lets go of the lock): a follower told of the write waits
    /// here, then reads. Taken on the writer, so this process's writes wait behind it, as
    /// they would for the other process's lock anyway.
    func waitForOtherWriters() async throws(CarePlanStoreError) {
        do {
            // GRDB's transaction, whose rollback runs even when the follower's task was
            // cancelled in between (a plain ROLLBACK is interrupted then, and the open
            // transaction is fatal at the end of the access).
            try await pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) { .rollback }
            }
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    static func changes(_ db: Database, after revision: Int, activityID: String?, limit: Int?) throws -> [StoreChange] {
        var sql = "SELECT \(StoreChange.columns) FROM change WHERE revision > ?"
        var arguments: StatementArguments = [revision]
        if let activityID {
            sql += " AND activity_id = ?"
            arguments += [activityID]
        }
        sql += " ORDER BY revision LIMIT ?"
        arguments += [limit ?? -1]
        return try db.rows(sql, arguments: arguments).map(StoreChange.init(row:))
    }
}
