import GRDB

/// Statements compiled once per connection and reused: the store runs the same few
/// queries over and over, and compiling them cost more than running them. (The companion's
/// state writes through `run` and `transaction` too.) They buy (A/B, `caresync-bench store`,
/// release, eight runs each, 2026-12-02, against a statement compiled at each call) a
/// schedule's events of a day in 89 µs against 209 µs, a 200-activity plan loaded in 37 ms
/// against 64 ms and reloaded unchanged in 4.0 ms against 19.8 ms.
extension Database {
    /// Runs `sql` through the connection's cached statement for it.
    package func run(_ sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Runs `body` in one transaction, begun IMMEDIATE and rolled back if it throws, through
    /// cached statements (GRDB's `inTransaction` compiles its BEGIN and COMMIT every time).
    package func transaction(_ body: () throws -> Void) throws {
        try run("BEGIN IMMEDIATE")
        do {
            try body()
            try run("COMMIT")
        } catch {
            // GRDB's rollback: it does nothing when SQLite already rolled back (a full disk,
            // say), and runs even when a cancelled task has interrupted the connection (a
            // plain ROLLBACK would fail then and leave the transaction open).
            try? rollback()
            throw error
        }
    }

    func rows(_ sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    func row(_ sql: String, arguments: StatementArguments = []) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func rowCursor(_ sql: String, arguments: StatementArguments = []) throws -> RowCursor {
        try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
    }

    func value<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, _ sql: String, arguments: StatementArguments = []
    ) throws -> T? {
        try T.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func values<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, _ sql: String, arguments: StatementArguments = []
    ) throws -> [T] {
        try T.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }
}
