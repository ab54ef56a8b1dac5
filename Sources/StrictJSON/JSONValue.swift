import Foundation

/// Any JSON value, the one such type of CareSync: what a FHIR resource is carried as from a
/// Bundle to its own model (kept whole, unknown fields included), and what an output line
/// without a type of its own is built of (`["event": "listening", "port": .int(port)]`).
///
/// Numbers are `Decimal`, so that what is read is written back without binary rounding
/// (`0.1` stays `0.1`, a 20-digit identifier keeps its digits).
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case number(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// A whole number.
    public static func int(_ value: Int) -> JSONValue { .number(Decimal(value)) }

    /// `value` with the fewest digits that read back as it; `null` when JSON cannot hold it
    /// (infinities, NaN, beyond `Decimal`'s range).
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite, let number = Decimal(string: "\(value)") else { return .null }
        return .number(number)
    }

    /// `text`, or `null` when there is none.
    public static func orNull(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let bool = try? c.decode(Bool.self) {
            self = .bool(bool)
        } else if let string = try? c.decode(String.self) {
            self = .string(string)
        } else if let number = try? c.decode(Decimal.self) {
            self = .number(number)
        } else if let array = try? c.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let bool): try c.encode(bool)
        case .number(let number): try c.encode(number)
        case .string(let string): try c.encode(string)
        case .array(let array): try c.encode(array)
        case .object(let object): try c.encode(object)
        }
    }

    /// The member `key` of an object; `nil` for a missing member or anything but an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    public var string: String? {
        if case .string(let string) = self { string } else { nil }
    }

    public var object: [String: JSONValue]? {
        if case .object(let object) = self { object } else { nil }
    }

    public var array: [JSONValue]? {
        if case .array(let array) = self { array } else { nil }
    }

    /// Compact JSON with sorted keys, so the same value always gives the same bytes.
    public var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}
