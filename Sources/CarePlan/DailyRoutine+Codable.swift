/// The JSON form, documented in CarePlanDocument.docc/PlanDocuments.md ("Daily routine"): `{"wake", "breakfast", "lunch", "dinner", "bed"}`
/// as `HH:MM`, each optional (the standard routine's time), and optionally `dayParts`
/// (`{"afternoon": "16:00"}`), `dosesPerDay` (`{"2": ["09:00", "21:00"]}`) and `intervalStart`.
extension DailyRoutine: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case wake, breakfast, lunch, dinner, bed, dayParts, dosesPerDay, intervalStart
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let standard = DailyRoutine.standard
        var parts: [DayPart: TimeOfDay] = [:]
        let partNames = DayPart.allCases.filter { $0.rule.anchor != $0 }.map(\.rawValue)
        let givenParts = try c.decodeIfPresent([String: TimeOfDay].self, forKey: .dayParts) ?? [:]
        for (name, time) in givenParts.sorted(by: { $0.key < $1.key }) {
            guard let part = DayPart(rawValue: name), part.rule.anchor != part else {
                let why = DayPart(rawValue: name) == nil
                    ? "unknown day part; " + NameSuggestion.hint(for: name, among: partNames, kind: "day part")
                    : "set the routine's own \"\(name)\" instead"
                throw Self.error(at: c.codingPath + [CodingKeys.dayParts, AnyCodingKey(name)], why)
            }
            parts[part] = time
        }
        var doses: [Int: [TimeOfDay]] = [:]
        let counts = 1...Schedule.maximumOccurrencesPerDay
        let givenDoses = try c.decodeIfPresent([String: [TimeOfDay]].self, forKey: .dosesPerDay) ?? [:]
        for (count, times) in givenDoses.sorted(by: { $0.key < $1.key }) {
            guard let n = Int(count), counts.contains(n) else {
                throw Self.error(
                    at: c.codingPath + [CodingKeys.dosesPerDay, AnyCodingKey(count)],
                    "expected a whole number of doses from 1 to \(counts.upperBound)")
            }
            doses[n] = times
        }
        func time(_ key: CodingKeys) throws -> TimeOfDay? { try c.decodeIfPresent(TimeOfDay.self, forKey: key) }
        let (wake, breakfast, lunch, dinner, bed) = (try time(.wake), try time(.breakfast), try time(.lunch), try time(.dinner), try time(.bed))
        let intervalStart = try time(.intervalStart)
        do throws(RoutineError) {
            self = try DailyRoutine(
                wake: wake ?? standard.wake, breakfast: breakfast ?? standard.breakfast, lunch: lunch ?? standard.lunch,
                dinner: dinner ?? standard.dinner, bed: bed ?? standard.bed, dayParts: parts, dosesPerDay: doses,
                intervalStart: intervalStart)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: error.description))
        }
    }

    private static func error(at path: [any CodingKey], _ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: message))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(wake, forKey: .wake)
        try c.encode(breakfast, forKey: .breakfast)
        try c.encode(lunch, forKey: .lunch)
        try c.encode(dinner, forKey: .dinner)
        try c.encode(bed, forKey: .bed)
        if !dayParts.isEmpty {
            try c.encode(Dictionary(uniqueKeysWithValues: dayParts.map { ($0.key.rawValue, $0.value) }), forKey: .dayParts)
        }
        if !dosesPerDay.isEmpty {
            try c.encode(Dictionary(uniqueKeysWithValues: dosesPerDay.map { (String($0.key), $0.value) }), forKey: .dosesPerDay)
        }
        try c.encodeIfPresent(intervalStart, forKey: .intervalStart)
    }
}
