/// The JSON form, documented in CarePlanDocument.docc/PlanDocuments.md ("Insights"):
/// `{"adherence": {"below", "days"}, "missedDaysRunning", "ranges": [...], "comparisons": [...],
/// "tips": [...]}`, each optional.
extension InsightRules: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case adherence, missedDaysRunning, ranges, comparisons, tips }

    /// Days of a rule: at least one, at most a year.
    enum RuleDays: WholeNumberRange { static let range = 1...366 }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let standard = InsightRules.standard
        self.init(
            adherence: try c.decodeIfPresent(AdherenceRule.self, forKey: .adherence) ?? standard.adherence,
            missedDaysRunning: try c.decodeIfPresent(WholeNumber<RuleDays>.self, forKey: .missedDaysRunning)?.value
                ?? standard.missedDaysRunning,
            ranges: try c.decodeIfPresent([RangeRule].self, forKey: .ranges) ?? [],
            comparisons: try c.decodeIfPresent([Comparison].self, forKey: .comparisons) ?? [],
            tips: try c.decodeIfPresent([Tip].self, forKey: .tips) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(adherence, forKey: .adherence)
        try c.encode(missedDaysRunning, forKey: .missedDaysRunning)
        if !ranges.isEmpty { try c.encode(ranges, forKey: .ranges) }
        if !comparisons.isEmpty { try c.encode(comparisons, forKey: .comparisons) }
        if !tips.isEmpty { try c.encode(tips, forKey: .tips) }
    }
}

extension AdherenceRule: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case below, days }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let below = try c.decodeIfPresent(Double.self, forKey: .below) ?? 0.8
        guard (0...1).contains(below) else {
            throw DecodingError.dataCorruptedError(
                forKey: .below, in: c, debugDescription: "expected a fraction from 0 to 1 (0.8 is 80 %), found \(below)")
        }
        self.init(below: below, days: try c.decodeIfPresent(WholeNumber<InsightRules.RuleDays>.self, forKey: .days)?.value ?? 7)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(below, forKey: .below)
        try c.encode(days, forKey: .days)
    }
}

extension RangeRule: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case activity, component, atOrAbove, atOrBelow, days }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let atOrAbove = try c.decodeIfPresent(Double.self, forKey: .atOrAbove)
        let atOrBelow = try c.decodeIfPresent(Double.self, forKey: .atOrBelow)
        for (key, limit) in [(CodingKeys.atOrAbove, atOrAbove), (.atOrBelow, atOrBelow)] where limit?.isFinite == false {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "expected a finite number")
        }
        guard atOrAbove != nil || atOrBelow != nil else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: c.codingPath, debugDescription: "a range needs atOrAbove, atOrBelow or both"))
        }
        self.init(
            activity: try c.decode(String.self, forKey: .activity),
            component: try c.decodeIfPresent(String.self, forKey: .component),
            atOrAbove: atOrAbove, atOrBelow: atOrBelow,
            days: try c.decodeIfPresent(WholeNumber<InsightRules.RuleDays>.self, forKey: .days)?.value ?? 1)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(activity, forKey: .activity)
        try c.encodeIfPresent(component, forKey: .component)
        try c.encodeIfPresent(atOrAbove, forKey: .atOrAbove)
        try c.encodeIfPresent(atOrBelow, forKey: .atOrBelow)
        try c.encode(days, forKey: .days)
    }
}

extension Comparison: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case intervention, assessment }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        self.init(intervention: try c.decode(String.self, forKey: .intervention), assessment: try c.decode(String.self, forKey: .assessment))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(intervention, forKey: .intervention)
        try c.encode(assessment, forKey: .assessment)
    }
}

extension Tip: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case identifier = "id", title, text, from, until
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let from = try c.decodeIfPresent(CalendarDay.self, forKey: .from)
        let until = try c.decodeIfPresent(CalendarDay.self, forKey: .until)
        if let from, let until, until < from {
            throw DecodingError.dataCorruptedError(forKey: .until, in: c, debugDescription: "\(until) is before from (\(from))")
        }
        self.init(
            identifier: try c.decode(String.self, forKey: .identifier), title: try c.decode(String.self, forKey: .title),
            text: try c.decode(String.self, forKey: .text), from: from, until: until)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(title, forKey: .title)
        try c.encode(text, forKey: .text)
        try c.encodeIfPresent(from, forKey: .from)
        try c.encodeIfPresent(until, forKey: .until)
    }
}
