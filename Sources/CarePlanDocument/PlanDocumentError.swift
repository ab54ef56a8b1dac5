import Foundation

/// A care-plan document that cannot be used: which file, where in it, and what is wrong.
public struct PlanDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// A JSON path such as `$.activities[2].schedule.times[0]`.
    public var path: String
    public var message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
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
                message: "expected \(Self.jsonType(type))")
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

    /// `FILE: $.path: message`.
    public var description: String { "\(file): \(path): \(message)" }

    static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in
            key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)"
        }
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
