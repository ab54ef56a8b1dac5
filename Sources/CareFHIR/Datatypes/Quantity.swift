import Foundation

/// A measured amount (FHIR `Quantity`; also its profiles `Duration` and `SimpleQuantity`):
/// `unit` is for people, `system` and `code` (UCUM for durations) for machines.
public struct Quantity: Sendable, Hashable, Codable {
    public var value: Decimal?
    public var comparator: String?
    public var unit: String?
    public var system: String?
    public var code: String?

    public init(value: Decimal? = nil, comparator: String? = nil, unit: String? = nil, system: String? = nil, code: String? = nil) {
        self.value = value
        self.comparator = comparator
        self.unit = unit
        self.system = system
        self.code = code
    }

    /// The comparators FHIR allows: the real value is less than, at most, at least or more
    /// than the value given.
    public static let comparators: Set<String> = ["<", "<=", ">=", ">"]

    enum CodingKeys: String, CodingKey { case value, comparator, unit, system, code }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try c.decodeIfPresent(Decimal.self, forKey: .value)
        comparator = try c.decodeIfPresent(String.self, forKey: .comparator)
        unit = try c.decodeIfPresent(String.self, forKey: .unit)
        system = try c.decodeIfPresent(String.self, forKey: .system)
        code = try c.decodeIfPresent(String.self, forKey: .code)
        if let comparator, !Self.comparators.contains(comparator) {
            throw DecodingError.dataCorruptedError(
                forKey: .comparator, in: c, debugDescription: "expected <, <=, >= or >, found \"\(comparator)\"")
        }
    }
}

/// A range between two quantities, either end optional (FHIR `Range`).
public struct Range: Sendable, Hashable, Codable {
    public var low: Quantity?
    public var high: Quantity?

    public init(low: Quantity? = nil, high: Quantity? = nil) {
        self.low = low
        self.high = high
    }
}

/// A quantity per quantity, such as 6 tablets per day (FHIR `Ratio`).
public struct Ratio: Sendable, Hashable, Codable {
    public var numerator: Quantity?
    public var denominator: Quantity?

    public init(numerator: Quantity? = nil, denominator: Quantity? = nil) {
        self.numerator = numerator
        self.denominator = denominator
    }
}

/// A time span given by FHIR `dateTime` strings, either end optional (FHIR `Period`).
public struct Period: Sendable, Hashable, Codable {
    public var start: String?
    public var end: String?

    public init(start: String? = nil, end: String? = nil) {
        self.start = start
        self.end = end
    }
}
