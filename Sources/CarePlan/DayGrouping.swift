/// Calendar days grouped for charts: by year (`2016`), month (`2016-08`), ISO 8601 week
/// (`2016-W34`, weeks from Monday, in the year of their Thursday) or day (`2016-08-15`).
public enum DayGrouping: String, Sendable, Hashable, CaseIterable {
    case year, month, week, day

    /// The identifier of the group that holds `day`.
    public func identifier(of day: CalendarDay) -> String {
        let (year, month, _) = day.components
        switch self {
        case .year: return year.zeroPadded(4)
        case .month: return year.zeroPadded(4) + "-" + month.zeroPadded(2)
        case .week:
            let thursday = day.adding(days: 3 - Self.daysSinceMonday(day))
            let week = CalendarDay(year: thursday.year, month: 1, day: 1)!.distance(to: thursday) / 7 + 1
            return thursday.year.zeroPadded(4) + "-W" + week.zeroPadded(2)
        case .day: return day.description
        }
    }

    /// Every group from the one holding `first` through the one holding `last`, empty ones
    /// included, each with its days (clipped to `first...last`).
    public func groups(from first: CalendarDay, through last: CalendarDay) -> [(identifier: String, days: ClosedRange<CalendarDay>)] {
        var groups: [(String, ClosedRange<CalendarDay>)] = []
        var start = first
        while start <= last {
            let next = nextStart(after: start)
            groups.append((identifier(of: start), start...min(last, next.adding(days: -1))))
            start = next
        }
        return groups
    }

    /// The first day of the group after the one holding `day`.
    private func nextStart(after day: CalendarDay) -> CalendarDay {
        let (year, month, _) = day.components
        switch self {
        case .year: return CalendarDay(year: year + 1, month: 1, day: 1)!
        case .month: return month == 12 ? CalendarDay(year: year + 1, month: 1, day: 1)! : CalendarDay(year: year, month: month + 1, day: 1)!
        case .week: return day.adding(days: 7 - Self.daysSinceMonday(day))
        case .day: return day.adding(days: 1)
        }
    }

    private static func daysSinceMonday(_ day: CalendarDay) -> Int { (day.weekday.rawValue + 6) % 7 }
}
