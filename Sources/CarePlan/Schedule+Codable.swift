extension CodingUserInfoKey {
    /// A ``CalendarDay`` used as a schedule's start where a document gives none.
    public static let defaultScheduleStart = CodingUserInfoKey(rawValue: "caresync.defaultScheduleStart")!
}

/// The JSON form, documented in CarePlanDocument.docc/PlanDocuments.md:
/// `{"start", "end", "occurrences" | "weekly", "daysOfWeek", "daysToSkip", "times", "count", "asNeeded"}`.
extension Schedule: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case start, end, occurrences, weekly, daysOfWeek, daysToSkip, times, count, asNeeded
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let start: CalendarDay
        if let given = try c.decodeIfPresent(CalendarDay.self, forKey: .start) {
            start = given
        } else if let fallback = decoder.userInfo[.defaultScheduleStart] as? CalendarDay {
            start = fallback
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.start,
                .init(codingPath: c.codingPath, debugDescription: "a schedule needs a start day"))
        }
        let times = try c.decodeIfPresent([TimeOfDay].self, forKey: .times) ?? []
        let weekly = try c.decodeIfPresent([WholeNumber<OnAWeekday>].self, forKey: .weekly)?.map(\.value)
        let occurrences = try c.decodeIfPresent(WholeNumber<PerDay>.self, forKey: .occurrences)?.value
        let weekdays = try c.decodeIfPresent([Weekday].self, forKey: .daysOfWeek).map(Set.init)
        let counts: [Int]
        if let weekly {
            guard occurrences == nil, weekdays == nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .weekly, in: c,
                    debugDescription: "\"weekly\" cannot be combined with \"occurrences\" or \"daysOfWeek\"")
            }
            counts = weekly
        } else {
            guard let perDay = occurrences ?? (times.isEmpty ? nil : times.count) else {
                throw DecodingError.keyNotFound(
                    CodingKeys.occurrences,
                    .init(codingPath: c.codingPath,
                          debugDescription: "a schedule needs \"occurrences\", \"weekly\" or \"times\""))
            }
            if let weekdays, weekdays.isEmpty {
                throw DecodingError.dataCorruptedError(
                    forKey: .daysOfWeek, in: c, debugDescription: "\"daysOfWeek\" is empty")
            }
            counts = Weekday.allCases.map { weekdays?.contains($0) ?? true ? perDay : 0 }
        }
        let end = try c.decodeIfPresent(CalendarDay.self, forKey: .end)
        let daysToSkip = try c.decodeIfPresent(WholeNumber<DaysToSkip>.self, forKey: .daysToSkip)?.value ?? 0
        let totalCount = try c.decodeIfPresent(WholeNumber<TotalCount>.self, forKey: .count)?.value
        let asNeeded = try c.decodeIfPresent(Bool.self, forKey: .asNeeded) ?? false
        do throws(ScheduleError) {
            self = try Schedule(
                start: start, end: end, weeklyOccurrences: counts, daysToSkip: daysToSkip,
                times: times, totalCount: totalCount, asNeeded: asNeeded)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath, debugDescription: error.description))
        }
    }

    /// The ranges of a document's numbers.
    enum PerDay: WholeNumberRange { static let range = 1...Schedule.maximumOccurrencesPerDay }
    enum OnAWeekday: WholeNumberRange { static let range = 0...Schedule.maximumOccurrencesPerDay }
    enum DaysToSkip: WholeNumberRange { static let range = 0...DocumentNumber.largest }
    enum TotalCount: WholeNumberRange { static let range = 1...DocumentNumber.largest }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encodeIfPresent(end, forKey: .end)
        let perDay = weeklyOccurrences.max()!
        if weeklyOccurrences.allSatisfy({ $0 == 0 || $0 == perDay }) {
            try c.encode(perDay, forKey: .occurrences)
            if weeklyOccurrences.contains(0) {
                let days = Weekday.allCases.filter { weeklyOccurrences[$0.rawValue] > 0 }
                try c.encode(days, forKey: .daysOfWeek)
            }
        } else {
            try c.encode(weeklyOccurrences, forKey: .weekly)
        }
        if daysToSkip > 0 { try c.encode(daysToSkip, forKey: .daysToSkip) }
        if !times.isEmpty { try c.encode(times, forKey: .times) }
        try c.encodeIfPresent(totalCount, forKey: .count)
        if asNeeded { try c.encode(true, forKey: .asNeeded) }
    }
}
