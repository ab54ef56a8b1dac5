/// When an activity's events occur: on which calendar days, how many times, and at what times.
///
/// One shape covers CareKit's daily, weekly and "every k-th day" schedules and what a
/// FHIR `Timing` becomes: a count per day of the week (Sunday first), a stride of days,
/// an optional wall-clock time per occurrence, a first and an optional last day, and an
/// optional total number of occurrences.
public struct Schedule: Sendable, Hashable {
    /// The first day with events; also the anchor of `daysToSkip`.
    public var start: CalendarDay
    /// The last day with events (inclusive), if any.
    public var end: CalendarDay?
    /// Occurrences on each day of the week, Sunday first: always seven entries.
    public var weeklyOccurrences: [Int]
    /// Days skipped between days with events: 0 is every day, 1 every other day.
    public var daysToSkip: Int
    /// The wall-clock time of occurrence `i` is `times[i]`; occurrences past the end of
    /// the list have no time of their own.
    public var times: [TimeOfDay]
    /// The schedule stops after this many occurrences in total.
    public var totalCount: Int?
    /// Whether the occurrences are slots to use when needed rather than due events: the
    /// patient records what was taken, nothing is reminded or counted as missed.
    public var asNeeded: Bool

    /// The largest number of occurrences a schedule may have on one day.
    public static let maximumOccurrencesPerDay = 96

    /// A schedule with the same number of occurrences every scheduled day.
    ///
    /// - Parameters:
    ///   - occurrences: occurrences on each scheduled day; defaults to the number of `times`.
    ///   - times: the occurrences' times of day, if they have any.
    ///   - start: the first day of the schedule.
    ///   - end: the last day, if it ends.
    ///   - daysToSkip: days left out after each scheduled day (1: every other day).
    ///   - weekdays: restricts the schedule to these days of the week.
    ///   - totalCount: the number of occurrences after which the schedule ends, if any.
    ///   - asNeeded: taken when needed: nothing is due.
    public static func daily(
        occurrences: Int? = nil, times: [TimeOfDay] = [], start: CalendarDay,
        end: CalendarDay? = nil, daysToSkip: Int = 0, weekdays: Set<Weekday>? = nil,
        totalCount: Int? = nil, asNeeded: Bool = false
    ) throws(ScheduleError) -> Schedule {
        let count = occurrences ?? times.count
        let counts = Weekday.allCases.map { weekdays?.contains($0) ?? true ? count : 0 }
        return try Schedule(
            start: start, end: end, weeklyOccurrences: counts, daysToSkip: daysToSkip,
            times: times, totalCount: totalCount, asNeeded: asNeeded)
    }

    /// A schedule with its own count for each day of the week (seven counts, Sunday first).
    public static func weekly(
        _ counts: [Int], times: [TimeOfDay] = [], start: CalendarDay, end: CalendarDay? = nil,
        totalCount: Int? = nil
    ) throws(ScheduleError) -> Schedule {
        try Schedule(
            start: start, end: end, weeklyOccurrences: counts, daysToSkip: 0, times: times,
            totalCount: totalCount)
    }

    /// Creates a schedule after checking that its parts fit together.
    public init(
        start: CalendarDay, end: CalendarDay? = nil, weeklyOccurrences: [Int], daysToSkip: Int = 0,
        times: [TimeOfDay] = [], totalCount: Int? = nil, asNeeded: Bool = false
    ) throws(ScheduleError) {
        guard weeklyOccurrences.count == 7 else {
            throw .weeklyCountsNeedSevenEntries(weeklyOccurrences.count)
        }
        if let bad = weeklyOccurrences.first(where: { !(0...Self.maximumOccurrencesPerDay).contains($0) }) {
            throw .occurrencesOutOfRange(bad)
        }
        guard weeklyOccurrences.contains(where: { $0 > 0 }) else { throw .noOccurrences }
        guard daysToSkip >= 0 else { throw .negativeDaysToSkip(daysToSkip) }
        if let end, end < start { throw .endBeforeStart(start: start, end: end) }
        if let totalCount, totalCount < 1 { throw .totalCountNotPositive(totalCount) }
        if times.count > weeklyOccurrences.max()! {
            throw .moreTimesThanOccurrences(times: times.count, occurrences: weeklyOccurrences.max()!)
        }
        self.start = start
        self.end = end
        self.weeklyOccurrences = weeklyOccurrences
        self.daysToSkip = daysToSkip
        self.times = times
        self.totalCount = totalCount
        self.asNeeded = asNeeded
    }

    /// The time of day of `occurrence`, if the schedule gives one.
    public func time(ofOccurrence occurrence: Int) -> TimeOfDay? {
        times.indices.contains(occurrence) ? times[occurrence] : nil
    }
}

/// Why a schedule cannot be built.
public enum ScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
    case weeklyCountsNeedSevenEntries(Int)
    case occurrencesOutOfRange(Int)
    case noOccurrences
    case negativeDaysToSkip(Int)
    case endBeforeStart(start: CalendarDay, end: CalendarDay)
    case totalCountNotPositive(Int)
    case moreTimesThanOccurrences(times: Int, occurrences: Int)

    public var description: String {
        switch self {
        case .weeklyCountsNeedSevenEntries(let n):
            "a weekly schedule needs 7 counts (Sunday first), found \(n)"
        case .occurrencesOutOfRange(let n):
            "occurrences per day must be between 0 and \(Schedule.maximumOccurrencesPerDay), found \(n)"
        case .noOccurrences:
            "the schedule has no occurrences on any day"
        case .negativeDaysToSkip(let n):
            "daysToSkip must not be negative, found \(n)"
        case .endBeforeStart(let start, let end):
            "the end day \(end) is before the start day \(start)"
        case .totalCountNotPositive(let n):
            "the total count must be at least 1, found \(n)"
        case .moreTimesThanOccurrences(let times, let occurrences):
            "\(times) times of day given for at most \(occurrences) occurrences a day"
        }
    }
}
