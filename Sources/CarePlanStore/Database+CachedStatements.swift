import GRDB

/// Statements compiled once per connection and reused: the store runs the same few
/// queries over and over, and compiling them cost more than running them.
extension Database {
    func run(_ sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
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
