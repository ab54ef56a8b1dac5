/// The JSON form, documented in the README: `{"wake", "breakfast", "lunch", "dinner", "bed"}`
/// as `HH:MM`, each optional (the standard routine's time), and optionally `dayParts`
/// (`{"afternoon": "16:00"}`), `dosesPerDay` (`{"2": ["09:00", "21:00"]}`) and `intervalStart`.
extension DailyRoutine: Codable {
    enum CodingKeys: String, CodingKey {
        case wake, breakfast, lunch, dinner, bed, dayParts, dosesPerDay, intervalStart
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let standard = DailyRoutine.standard
        var parts: [DayPart: TimeOfDay] = [:]
        for (name, time) in try c.decodeIfPresent([String: TimeOfDay].self, forKey: .dayParts) ?? [:] {
            guard let part = DayPart(rawValue: name), part.rule.anchor != part else {
                let names = DayPart.allCases.filter { $0.rule.anchor != $0 }.map(\.rawValue)
                throw DecodingError.dataCorruptedError(
                    forKey: .dayParts, in: c,
                    debugDescription: "unknown day part \"\(name)\": use one of \(names.joined(separator: ", "))")
            }
            parts[part] = time
        }
        var doses: [Int: [TimeOfDay]] = [:]
        for (count, times) in try c.decodeIfPresent([String: [TimeOfDay]].self, forKey: .dosesPerDay) ?? [:] {
            guard let n = Int(count) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .dosesPerDay, in: c, debugDescription: "expected a number of doses, found \"\(count)\"")
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
