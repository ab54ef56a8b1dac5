import CarePlan
import GRDB

extension CarePlanStore {
    /// Changes after `revision`, oldest first; optionally of one activity, at most `limit`.
    public func history(
        after revision: Int = 0, activityID: String? = nil, limit: Int? = nil
    ) throws(CarePlanStoreError) -> [StoreChange] {
        try read { db in try Self.changes(db, after: revision, activityID: activityID, limit: limit) }
    }

    /// Every change committed after `revision`, by this process or any other sharing the
    /// file, in revision order; it ends only when the consumer stops iterating.
    ///
    /// Commits in this process are delivered at once; other processes' commits are
    /// noticed within `pollInterval`.
    public func changes(
        after revision: Int, pollInterval: Duration = .milliseconds(50)
    ) -> AsyncThrowingStream<StoreChange, any Error> {
        let (stream, continuation) = AsyncThrowingStream<StoreChange, any Error>.makeStream()
        let subscription = signal.subscribe()
        let poller = Task { [signal] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                signal.poke(subscription.id)
            }
        }
        let reader = Task {
            var last = revision
            do {
                for await _ in subscription.stream {
                    for change in try history(after: last) {
                        continuation.yield(change)
                        last = change.revision
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        signal.poke(subscription.id)
        continuation.onTermination = { [signal] _ in
            poller.cancel()
            reader.cancel()
            signal.unsubscribe(subscription.id)
        }
        return stream
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
