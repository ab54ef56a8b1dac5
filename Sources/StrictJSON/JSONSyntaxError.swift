/// Where a text stops being standard JSON (RFC 8259), and what was expected there.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Counted from 1.
    public var line: Int
    /// Counted from 1, in characters (Unicode scalars), a tab as one.
    public var column: Int
    /// Such as `trailing comma before "}"`.
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}
