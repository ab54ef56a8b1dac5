import Foundation

/// When something happens (FHIR R4 `Timing`): explicit events, a repeating pattern, or a
/// code such as `BID`. DSTU2's timing is read by ``DSTU2Timing`` and converted to this shape.
public struct Timing: Sendable, Hashable, Codable {
    public var event: [String]?
    public var `repeat`: Repeat?
    public var code: CodeableConcept?

    public init(event: [String]? = nil, repeat: Repeat? = nil, code: CodeableConcept? = nil) {
        self.event = event
        self.repeat = `repeat`
        self.code = code
    }

    /// The repeating pattern: how often, for how long, on which days and at what times.
    public struct Repeat: Sendable, Hashable, Codable {
        public var boundsDuration: Quantity?
        public var boundsRange: Range?
        public var boundsPeriod: Period?
        public var count: Int?
        public var countMax: Int?
        public var duration: Decimal?
        public var durationMax: Decimal?
        public var durationUnit: String?
        public var frequency: Int?
        public var frequencyMax: Int?
        public var period: Decimal?
        public var periodMax: Decimal?
        /// `s`, `min`, `h`, `d`, `wk`, `mo` or `a` (UCUM).
        public var periodUnit: String?
        /// `mon` … `sun`.
        public var dayOfWeek: [String]?
        /// `hh:mm:ss`.
        public var timeOfDay: [String]?
        /// Event codes such as `MORN`, `HS`, `ACM`.
        public var when: [String]?
        /// Minutes from the `when` event (before it for `AC…` codes, after it otherwise).
        public var offset: Int?

        public init(
            boundsDuration: Quantity? = nil, boundsRange: Range? = nil, boundsPeriod: Period? = nil,
            count: Int? = nil, countMax: Int? = nil, duration: Decimal? = nil, durationMax: Decimal? = nil,
            durationUnit: String? = nil, frequency: Int? = nil, frequencyMax: Int? = nil, period: Decimal? = nil,
            periodMax: Decimal? = nil, periodUnit: String? = nil, dayOfWeek: [String]? = nil,
            timeOfDay: [String]? = nil, when: [String]? = nil, offset: Int? = nil
        ) {
            self.boundsDuration = boundsDuration
            self.boundsRange = boundsRange
            self.boundsPeriod = boundsPeriod
            self.count = count
            self.countMax = countMax
            self.duration = duration
            self.durationMax = durationMax
            self.durationUnit = durationUnit
            self.frequency = frequency
            self.frequencyMax = frequencyMax
            self.period = period
            self.periodMax = periodMax
            self.periodUnit = periodUnit
            self.dayOfWeek = dayOfWeek
            self.timeOfDay = timeOfDay
            self.when = when
            self.offset = offset
        }

        enum CodingKeys: String, CodingKey {
            case boundsDuration, boundsRange, boundsPeriod, count, countMax, duration, durationMax, durationUnit
            case frequency, frequencyMax, period, periodMax, periodUnit, dayOfWeek, timeOfDay, when, offset
        }

        public init(from decoder: any Decoder) throws {
            try FHIRVersionKeys.refuse(
                ["periodUnits": "periodUnit", "durationUnits": "durationUnit", "boundsQuantity": "boundsDuration"],
                in: decoder, version: "R4")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            boundsDuration = try c.decodeIfPresent(Quantity.self, forKey: .boundsDuration)
            boundsRange = try c.decodeIfPresent(Range.self, forKey: .boundsRange)
            boundsPeriod = try c.decodeIfPresent(Period.self, forKey: .boundsPeriod)
            count = try c.decodeIfPresent(Int.self, forKey: .count)
            countMax = try c.decodeIfPresent(Int.self, forKey: .countMax)
            duration = try c.decodeIfPresent(Decimal.self, forKey: .duration)
            durationMax = try c.decodeIfPresent(Decimal.self, forKey: .durationMax)
            durationUnit = try c.decodeIfPresent(String.self, forKey: .durationUnit)
            frequency = try c.decodeIfPresent(Int.self, forKey: .frequency)
            frequencyMax = try c.decodeIfPresent(Int.self, forKey: .frequencyMax)
            period = try c.decodeIfPresent(Decimal.self, forKey: .period)
            periodMax = try c.decodeIfPresent(Decimal.self, forKey: .periodMax)
            periodUnit = try c.decodeIfPresent(String.self, forKey: .periodUnit)
            dayOfWeek = try c.decodeIfPresent([String].self, forKey: .dayOfWeek)
            timeOfDay = try c.decodeIfPresent([String].self, forKey: .timeOfDay)
            when = try c.decodeIfPresent([String].self, forKey: .when)
            offset = try c.decodeIfPresent(Int.self, forKey: .offset)
        }
    }
}
