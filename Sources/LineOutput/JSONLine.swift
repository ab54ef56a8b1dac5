import CarePlan
import Foundation

/// A JSON value built in place, for output lines that have no type of their own:
/// `["event": "listening", "port": .int(port)]`.
public enum JSONValue: Sendable, Hashable, Encodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// `text`, or `null` when there is none.
    public static func orNull(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let value): try c.encode(value)
        case .int(let value): try c.encode(value)
        // JSON has no infinities or NaN.
        case .double(let value): if value.isFinite { try c.encode(value) } else { try c.encodeNil() }
        case .bool(let value): try c.encode(value)
        case .array(let value): try c.encode(value)
        case .object(let value): try c.encode(value)
        case .null: try c.encodeNil()
        }
    }
}

/// The one encoder of every JSON line CareSync prints: sorted keys, unescaped slashes,
/// timestamps as `ISO8601` strings.
public enum JSONLine {
    /// `value` as one line of JSON, without the newline.
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Writes `value` as one line of JSON to standard output (``JSONLine``).
public func emitJSON(_ value: some Encodable) throws {
    emit(try JSONLine.encode(value))
}

/// Writes a line built of JSON values to standard output. A tree of ``JSONValue``s always
/// encodes (non-finite numbers become `null`).
public func emitJSON(_ fields: [String: JSONValue]) {
    emit((try? JSONLine.encode(fields)) ?? "{}")
}
