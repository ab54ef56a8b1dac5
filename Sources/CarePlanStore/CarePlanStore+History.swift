import CarePlan
import GRDB

extension CarePlanStore {
    /// Changes after `revision`, oldest first; optionally of one activity, at most `limit`.
    public func history(
        after revision: Int = 0, activityID: String? = nil, limit: Int? = nil
    ) async throws(CarePlanStoreError) -> [StoreChange] {
        try await read { db in try Self.changes(db, after: revision, activityID: activityID, limit: limit) }
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
