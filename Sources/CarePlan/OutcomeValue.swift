import Foundation

/// One typed value of a result, with its unit and what it measures.
public struct OutcomeValue: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case integer(Int)
        case decimal(Double)
        case boolean(Bool)
        case text(String)
        case date(Date)
    }

    public var value: Value
    public var unit: String?
    /// What the value measures, such as `"systolic"`.
    public var kind: String?

    public init(_ value: Value, unit: String? = nil, kind: String? = nil) {
        self.value = value
        self.unit = unit
        self.kind = kind
    }

    /// The value as a number, if it is one: an integer or a decimal.
    var number: Double? {
        switch value {
        case .integer(let n): Double(n)
        case .decimal(let d): d
        default: nil
        }
    }

    /// The value as a person reads it, with its unit.
    public var formatted: String {
        let number: String
        switch value {
        case .integer(let n): number = String(n)
        case .decimal(let d): number = d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .boolean(let b): number = b ? "yes" : "no"
        case .text(let t): number = t
        case .date(let d): number = ISO8601.string(from: d)
        }
        return unit.map { "\(number) \($0)" } ?? number
    }
}

/// JSON: exactly one of `integer`, `decimal`, `boolean`, `text`, `date` (ISO 8601),
/// plus optional `unit` and `kind`.
extension OutcomeValue: Codable {
    enum CodingKeys: String, CodingKey { case integer, decimal, boolean, text, date, unit, kind }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let present = [CodingKeys.integer, .decimal, .boolean, .text, .date].filter(c.contains)
        guard present.count == 1, let key = present.first else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: c.codingPath,
                debugDescription: "a value needs exactly one of integer, decimal, boolean, text or date"))
        }
        switch key {
        case .integer: value = .integer(try c.decode(Int.self, forKey: key))
        case .decimal: value = .decimal(try c.decode(Double.self, forKey: key))
        case .boolean: value = .boolean(try c.decode(Bool.self, forKey: key))
        case .text: value = .text(try c.decode(String.self, forKey: key))
        default: value = .date(try ISO8601.decode(c, forKey: key))
        }
        unit = try c.decodeIfPresent(String.self, forKey: .unit)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .integer(let n): try c.encode(n, forKey: .integer)
        case .decimal(let d): try c.encode(d, forKey: .decimal)
        case .boolean(let b): try c.encode(b, forKey: .boolean)
        case .text(let t): try c.encode(t, forKey: .text)
        case .date(let d): try c.encode(ISO8601.string(from: d), forKey: .date)
        }
        try c.encodeIfPresent(unit, forKey: .unit)
        try c.encodeIfPresent(kind, forKey: .kind)
    }
}
