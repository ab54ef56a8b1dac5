import Foundation

/// A DSTU2 `Timing` (FHIR 1.0.2), read with DSTU2's own element names and converted to R4's
/// shape: `periodUnits` and `durationUnits`, `bounds[x]` as `boundsQuantity` (a duration),
/// `boundsRange` or `boundsPeriod`, and a single `when` code. DSTU2 has no `countMax`,
/// `dayOfWeek`, `timeOfDay` or `offset`; an R4 spelling in a DSTU2 resource is refused by name.
public struct DSTU2Timing: Sendable, Hashable, Decodable {
    public var event: [String]?
    public var `repeat`: Repeat?
    public var code: CodeableConcept?

    public struct Repeat: Sendable, Hashable, Decodable {
        public var boundsQuantity: Quantity?
        public var boundsRange: Range?
        public var boundsPeriod: Period?
        public var count: Int?
        public var duration: Decimal?
        public var durationMax: Decimal?
        public var durationUnits: String?
        public var frequency: Int?
        public var frequencyMax: Int?
        public var period: Decimal?
        public var periodMax: Decimal?
        public var periodUnits: String?
        public var when: String?

        enum CodingKeys: String, CodingKey {
            case boundsQuantity, boundsRange, boundsPeriod, count, duration, durationMax, durationUnits
            case frequency, frequencyMax, period, periodMax, periodUnits, when
        }

        public init(from decoder: any Decoder) throws {
            try FHIRVersionKeys.refuse(
                ["periodUnit": "periodUnits", "durationUnit": "durationUnits", "boundsDuration": "boundsQuantity",
                 "countMax": nil, "dayOfWeek": nil, "timeOfDay": nil, "offset": nil],
                in: decoder, version: "DSTU2")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            boundsQuantity = try c.decodeIfPresent(Quantity.self, forKey: .boundsQuantity)
            boundsRange = try c.decodeIfPresent(Range.self, forKey: .boundsRange)
            boundsPeriod = try c.decodeIfPresent(Period.self, forKey: .boundsPeriod)
            count = try c.decodeIfPresent(Int.self, forKey: .count)
            duration = try c.decodeIfPresent(Decimal.self, forKey: .duration)
            durationMax = try c.decodeIfPresent(Decimal.self, forKey: .durationMax)
            durationUnits = try c.decodeIfPresent(String.self, forKey: .durationUnits)
            frequency = try c.decodeIfPresent(Int.self, forKey: .frequency)
            frequencyMax = try c.decodeIfPresent(Int.self, forKey: .frequencyMax)
            period = try c.decodeIfPresent(Decimal.self, forKey: .period)
            periodMax = try c.decodeIfPresent(Decimal.self, forKey: .periodMax)
            periodUnits = try c.decodeIfPresent(String.self, forKey: .periodUnits)
            when = try c.decodeIfPresent(String.self, forKey: .when)
        }
    }

    /// The same timing in R4's shape.
    public var r4: Timing {
        Timing(event: event, repeat: `repeat`.map { r in
            Timing.Repeat(
                boundsDuration: r.boundsQuantity, boundsRange: r.boundsRange, boundsPeriod: r.boundsPeriod, count: r.count,
                duration: r.duration, durationMax: r.durationMax, durationUnit: r.durationUnits, frequency: r.frequency,
                frequencyMax: r.frequencyMax, period: r.period, periodMax: r.periodMax, periodUnit: r.periodUnits,
                when: r.when.map { [$0] })
        }, code: code)
    }
}

/// Elements one FHIR version spells differently from another, or lacks: found in the wrong
/// version they are refused with the right spelling, never silently ignored (an ignored
/// `periodUnits` in an R4 order would lose its period).
enum FHIRVersionKeys {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws if the object being decoded has one of `keys`: each maps to this version's
    /// spelling, or `nil` if `version` has no such element.
    static func refuse(_ keys: [String: String?], in decoder: any Decoder, version: String) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard let found = c.allKeys.map(\.stringValue).sorted().first(where: { keys[$0] != nil }) else { return }
        let instead = keys[found]!.map { "; \(version) spells it \"\($0)\"" } ?? ""
        throw DecodingError.dataCorrupted(.init(
            codingPath: c.codingPath + [Key(stringValue: found)],
            debugDescription: "not an element of \(version) Timing.repeat\(instead)"))
    }
}
