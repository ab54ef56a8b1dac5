import CarePlan
import Foundation

/// A FHIR `dateTime`: a year, year-month, date, or date and time with a UTC offset.
public struct FHIRDateTime: Sendable, Hashable {
    /// The calendar date as written (a partial date has its first month or day).
    public var day: CalendarDay
    /// How much of the date was given: 1 year, 2 year-month, 3 a full date.
    public var precision: Int
    /// The instant, when a time with its offset was given.
    public var instant: Date?

    /// The date `day`, without a time.
    public init(day: CalendarDay) {
        self.day = day
        precision = 3
        instant = nil
    }

    /// Parses `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)`.
    public init?(_ text: String) {
        let datePart = String(text.prefix(10))
        let pieces = datePart.split(separator: "-").map(String.init)
        guard text.count == 4 || text.count == 7 || text.count >= 10 else { return nil }
        let padded = pieces + Array(repeating: "01", count: max(0, 3 - pieces.count))
        guard (1...3).contains(pieces.count), let day = CalendarDay(padded.prefix(3).joined(separator: "-")) else { return nil }
        self.day = day
        precision = pieces.count
        instant = nil
        guard text.count > 10 else { return }
        let clock = text.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, clock[0] < 24, clock[1] < 60, clock[2] < 61, let parsed = ISO8601.date(from: text) else { return nil }
        instant = parsed
    }

    /// The day in `timeZone`: the instant's day there if a time was given, else the date as written.
    public func day(in timeZone: TimeZone) -> CalendarDay {
        instant.map { CalendarDay.containing($0, in: timeZone) } ?? day
    }

    /// The last day the value covers in `timeZone`: the end of its month or year for partial dates.
    public func lastDay(in timeZone: TimeZone) -> CalendarDay {
        switch precision {
        case 1: CalendarDay(year: day.year, month: 12, day: 31)!
        case 2: CalendarDay(year: day.year, month: day.month + 1, day: 1).map { $0.adding(days: -1) }
            ?? CalendarDay(year: day.year, month: 12, day: 31)!
        default: day(in: timeZone)
        }
    }

}
