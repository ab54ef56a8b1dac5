/// The patient's day: when they wake, eat and go to bed. It is the one source of the clock
/// times that day parts ("in the morning", "before dinner", "at bedtime") and orders without
/// times ("twice a day", "every 8 hours") stand for: schedules made from FHIR orders and
/// reminders both read it. CarePlanDocument.docc/PlanDocuments.md ("Daily routine") documents the table.
public struct DailyRoutine: Sendable, Hashable {
    public var wake: TimeOfDay
    public var breakfast: TimeOfDay
    public var lunch: TimeOfDay
    public var dinner: TimeOfDay
    public var bed: TimeOfDay
    /// Day parts whose time differs from the rule of ``DayPart/rule``.
    public var dayParts: [DayPart: TimeOfDay]
    /// Standard administration times for N doses a day, where they differ from the rule of
    /// ``administrationTimes(count:)``: N times each.
    public var dosesPerDay: [Int: [TimeOfDay]]
    /// The first dose of round-the-clock interval orders (every 4, 6, 8 hours); default: waking.
    public var intervalStart: TimeOfDay?

    /// The routine of a plan that gives none: up at 07:00, meals at 08:00, 12:30 and 18:30, bed at 22:00.
    public static let standard = try! DailyRoutine()

    public init(
        wake: TimeOfDay = .init(hour: 7, minute: 0)!, breakfast: TimeOfDay = .init(hour: 8, minute: 0)!,
        lunch: TimeOfDay = .init(hour: 12, minute: 30)!, dinner: TimeOfDay = .init(hour: 18, minute: 30)!,
        bed: TimeOfDay = .init(hour: 22, minute: 0)!, dayParts: [DayPart: TimeOfDay] = [:],
        dosesPerDay: [Int: [TimeOfDay]] = [:], intervalStart: TimeOfDay? = nil
    ) throws(RoutineError) {
        let sinceWaking = [breakfast, lunch, dinner, bed].map { ($0.minutes - wake.minutes + 1440) % 1440 }
        guard sinceWaking.first! > 0, zip(sinceWaking, sinceWaking.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .outOfOrder
        }
        for (count, times) in dosesPerDay {
            guard (1...Schedule.maximumOccurrencesPerDay).contains(count) else { throw .dosesPerDayOutOfRange(count) }
            guard times.count == count, Set(times).count == count else { throw .wrongNumberOfTimes(count: count, given: times.count) }
        }
        self.wake = wake
        self.breakfast = breakfast
        self.lunch = lunch
        self.dinner = dinner
        self.bed = bed
        self.dayParts = dayParts
        self.dosesPerDay = dosesPerDay
        self.intervalStart = intervalStart
    }

    /// The clock time of `part`: the routine's own, an override, or the rule's.
    public func time(of part: DayPart) -> TimeOfDay {
        switch part {
        case .wake: return wake
        case .breakfast: return breakfast
        case .lunch: return lunch
        case .dinner: return dinner
        case .bed: return bed
        default:
            if let override = dayParts[part] { return override }
            let (anchor, minutes) = part.rule
            return time(of: anchor).adding(minutes: minutes)
        }
    }

    /// When `count` doses a day are due when an order gives no times: one at breakfast; two at
    /// breakfast and dinner; three at the meals; four at the meals and bedtime; five or more
    /// spread evenly from waking to bedtime. A plan may set its own (``dosesPerDay``).
    public func administrationTimes(count: Int) -> [TimeOfDay] {
        if let given = dosesPerDay[count] { return given.sorted() }
        switch count {
        case ...0: return []
        case 1: return [breakfast]
        case 2: return [breakfast, dinner].sorted()
        case 3: return [breakfast, lunch, dinner].sorted()
        case 4: return [breakfast, lunch, dinner, bed].sorted()
        default:
            let span = (bed.minutes - wake.minutes + 1440) % 1440
            return Self.spread(count, from: wake, over: span)
        }
    }

    /// When `count` doses a day are due for a round-the-clock interval (every 24/count hours):
    /// on the clock from ``intervalStart``, else from waking.
    public func intervalTimes(count: Int) -> [TimeOfDay] {
        guard count > 0 else { return [] }
        return Self.spread(count, from: intervalStart ?? wake, over: 1440 * (count - 1) / count)
    }

    /// Times for `count` doses a day of which the first `given.count` have times of their own:
    /// the given times in their order, then standard times (``intervalTimes(count:)`` for a
    /// round-the-clock `interval`, else ``administrationTimes(count:)``), those farthest from
    /// the given ones first, in clock order. No two are the same unless `given` repeats one.
    public func times(completing given: [TimeOfDay], to count: Int, interval: Bool = false) -> [TimeOfDay] {
        guard given.count < count else { return given }
        func distance(_ time: TimeOfDay) -> Int {
            given.map { abs($0.minutes - time.minutes) }.map { min($0, 1440 - $0) }.min() ?? 0
        }
        let standard = interval ? intervalTimes(count: count) : administrationTimes(count: count)
        let added = standard.filter { !given.contains($0) }.sorted { distance($0) > distance($1) }
        return given + added.prefix(count - given.count).sorted()
    }

    /// `count` times from `first`, evenly over `span` minutes (first and last included), on
    /// five-minute marks when the gaps allow it, sorted by the clock. Where `span` is too short
    /// for `count` different minutes, over the whole day instead; more than 1440 repeat some.
    static func spread(_ count: Int, from first: TimeOfDay, over span: Int) -> [TimeOfDay] {
        guard count > 1 else { return [first] }
        let step = Double(span) / Double(count - 1)
        let mark = step >= 10 ? 5.0 : 1.0
        let times = (0..<count).map { k in first.adding(minutes: Int((Double(k) * step / mark).rounded() * mark)) }
        let wholeDay = 1440 * (count - 1) / count
        return Set(times).count == count || span >= wholeDay ? times.sorted() : spread(count, from: first, over: wholeDay)
    }
}

/// Named times of the patient's day, as FHIR's `Timing.repeat.when` codes refer to them.
public enum DayPart: String, Sendable, Hashable, Codable, CaseIterable, NamedCases {
    /// The routine's own times.
    case wake, breakfast, lunch, dinner, bed
    /// Times placed relative to them by ``rule``.
    case earlyMorning, morning, lateMorning, noon, earlyAfternoon, afternoon, lateAfternoon
    case earlyEvening, evening, lateEvening, night

    /// Where a derived day part falls: minutes from one of the routine's own times (with the
    /// standard routine in brackets). The routine's own times are their own anchors.
    public var rule: (anchor: DayPart, minutes: Int) {
        switch self {
        case .wake, .breakfast, .lunch, .dinner, .bed: (self, 0)
        case .earlyMorning: (.wake, 0)  // 07:00
        case .morning: (.breakfast, 0)  // 08:00
        case .lateMorning: (.breakfast, 120)  // 10:00
        case .noon: (.lunch, -30)  // 12:00
        case .earlyAfternoon: (.lunch, 60)  // 13:30
        case .afternoon: (.lunch, 150)  // 15:00
        case .lateAfternoon: (.dinner, -120)  // 16:30
        case .earlyEvening: (.dinner, -60)  // 17:30
        case .evening: (.dinner, 30)  // 19:00
        case .lateEvening: (.bed, -120)  // 20:00
        case .night: (.bed, 0)  // 22:00
        }
    }
}

/// Why a routine cannot be used.
public enum RoutineError: Error, Hashable, Sendable, CustomStringConvertible {
    case outOfOrder
    case dosesPerDayOutOfRange(Int)
    case wrongNumberOfTimes(count: Int, given: Int)

    public var description: String {
        switch self {
        case .outOfOrder:
            "the routine's times must follow the day from waking: wake, breakfast, lunch, dinner, bed"
        case .dosesPerDayOutOfRange(let count):
            "doses per day must be between 1 and \(Schedule.maximumOccurrencesPerDay), found \(count)"
        case .wrongNumberOfTimes(let count, let given):
            "\(count) doses a day need \(count) different times, found \(given)"
        }
    }
}

extension TimeOfDay {
    /// This time `minutes` later (earlier if negative), around the clock.
    public func adding(minutes: Int) -> TimeOfDay {
        let total = ((self.minutes + minutes) % 1440 + 1440) % 1440
        return TimeOfDay(hour: total / 60, minute: total % 60)!
    }
}
