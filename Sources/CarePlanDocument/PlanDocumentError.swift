import Foundation
import StrictJSON

/// A care-plan document that cannot be used: which file, where in it, and what is wrong.
public struct PlanDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// A JSON path such as `$.activities[2].schedule.times[0]`; `$` for the whole document.
    public var path: String
    /// Where the text stops being standard JSON; `nil` for errors that name a path instead.
    public var position: Position?
    public var message: String

    /// A line and a column, counted from 1.
    public struct Position: Hashable, Sendable {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    public init(file: String, path: String, position: Position? = nil, message: String) {
        self.file = file
        self.path = path
        self.position = position
        self.message = message
    }

    init(file: String, syntaxError: JSONSyntaxError) {
        self.init(
            file: file, path: "$", position: Position(line: syntaxError.line, column: syntaxError.column),
            message: syntaxError.message)
    }

    init(file: String, decodingError: DecodingError) {
        switch decodingError {
        case .keyNotFound(let key, let context):
            self.init(
                file: file, path: Self.jsonPath(context.codingPath + [key]),
                message: context.debugDescription.hasPrefix("No value associated")
                    ? "required field \"\(key.stringValue)\" is missing" : context.debugDescription)
        case .typeMismatch(let type, let context):
            self.init(
                file: file, path: Self.jsonPath(context.codingPath),
                message: "expected \(Self.jsonType(type))" + Self.found(context.debugDescription))
        case .valueNotFound(let type, let context):
            self.init(
                file: file, path: Self.jsonPath(context.codingPath),
                message: "expected \(Self.jsonType(type)), found null")
        case .dataCorrupted(let context):
            self.init(file: file, path: Self.jsonPath(context.codingPath), message: context.debugDescription)
        @unknown default:
            self.init(file: file, path: "$", message: String(describing: decodingError))
        }
    }

    /// `FILE: $.path: message`, or `FILE: line L, column C: message` for a syntax error.
    public var description: String {
        let location = position.map { "line \($0.line), column \($0.column)" } ?? path
        return "\(file): \(location): \(message)"
    }

    /// `$.activities[2].title`; a name that is not an identifier in brackets: `$.routine.dosesPerDay["2"]`.
    static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in
            if let index = key.intValue { return "\(path)[\(index)]" }
            let name = key.stringValue
            let isIdentifier = name.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            return isIdentifier ? "\(path).\(name)" : "\(path)[\"\(name)\"]"
        }
    }

    /// `, found a string` from JSONDecoder's "Expected to decode Int but found a string instead."
    private static func found(_ debugDescription: String) -> String {
        guard let start = debugDescription.range(of: "but found "),
              let end = debugDescription.range(of: " instead", range: start.upperBound..<debugDescription.endIndex)
        else { return "" }
        let found = debugDescription[start.upperBound..<end.lowerBound]
        let known = ["a string": "a string", "number": "a number", "bool": "a boolean", "an array": "an array",
                     "a dictionary": "an object", "null": "null"]
        return known[String(found)].map { ", found \($0)" } ?? ""
    }

    private static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
