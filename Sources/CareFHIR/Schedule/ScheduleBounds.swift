import CarePlan
import Foundation

/// The first and last day of a dosage's schedule: `bounds[x]`, else the order's start.
struct ScheduleBounds {
    var start: CalendarDay
    var end: CalendarDay?

    init(_ r: Timing.Repeat?, start defaultStart: CalendarDay, timeZone: TimeZone, path: String,
         warnings: inout [ImportWarning]) throws(FHIRError) {
        start = defaultStart
        end = nil
        guard let r else { return }
        if let period = r.boundsPeriod {
            if let text = period.start { start = try Self.dateTime(text, path + ".boundsPeriod.start").day(in: timeZone) }
            if let text = period.end { end = try Self.dateTime(text, path + ".boundsPeriod.end").lastDay(in: timeZone) }
        }
        if let duration = r.boundsDuration {
            end = try Self.lastDay(after: start, lasting: duration, path + ".boundsDuration")
        }
        if let range = r.boundsRange, let low = range.low, range.high == nil {
            // "For at least 5 days": the course has no known end.
            let first = try Self.lastDay(after: start, lasting: low, path + ".boundsRange.low")
            warnings.append(.init(.range, at: path + ".boundsRange", "at least until \(first), with no end given: scheduled without an end"))
        } else if let range = r.boundsRange, let high = range.high {
            end = try Self.lastDay(after: start, lasting: high, path + ".boundsRange.high")
            if range.low != nil {
                warnings.append(.init(.range, at: path + ".boundsRange", "a range of durations: scheduled until \(end!), its longest"))
            }
        }
    }

    static func dateTime(_ text: String, _ path: String) throws(FHIRError) -> FHIRDateTime {
        guard let value = FHIRDateTime(text) else { throw .invalid(path: path, "expected a FHIR dateTime, found \"\(text)\"") }
        return value
    }

    /// The longest course a dosage may name: a century, in days.
    static let longestDays: Decimal = 36_525

    /// The last day of a span of `duration` starting on `start`; months and years by the calendar.
    /// A span longer than ``longestDays`` is refused rather than scheduled into the far future.
    static func lastDay(after start: CalendarDay, lasting duration: Quantity, _ path: String) throws(FHIRError) -> CalendarDay {
        guard let value = duration.value, value > 0 else { throw .invalid(path: path + ".value", "expected a positive duration") }
        let unit = try TimeUnit.parse(quantity: duration, at: path)
        guard value * unit.minutes / 1440 <= longestDays else {
            throw .invalid(path: path + ".value", "expected a duration of at most 100 years, found \(value) \(unit.rawValue)")
        }
        let whole = NSDecimalNumber(decimal: value).intValue
        if !unit.isExact, Decimal(whole) == value {
            let target = start.year * 12 + start.month - 1 + whole * (unit == .a ? 12 : 1)
            let (year, month) = (target / 12, target % 12 + 1)
            let sameDay = (0...3).lazy.compactMap { CalendarDay(year: year, month: month, day: start.day - $0) }.first!
            return sameDay.adding(days: -1)
        }
        let days = NSDecimalNumber(decimal: value * unit.minutes / 1440).doubleValue.rounded(.up)
        return start.adding(days: max(1, Int(days)) - 1)
    }
}

extension TimeUnit {
    /// The unit of a duration: its UCUM code, else its unit's English name (`days`).
    static func parse(quantity: Quantity, at path: String) throws(FHIRError) -> TimeUnit {
        let names: [String: TimeUnit] = [
            "second": .s, "sec": .s, "minute": .min, "hour": .h, "hr": .h, "day": .d, "week": .wk, "month": .mo, "year": .a, "yr": .a,
        ]
        if let code = quantity.code { return try parse(code, at: path + ".code")! }
        let name = quantity.unit?.lowercased() ?? ""
        if let unit = TimeUnit(rawValue: name) ?? names[name] ?? names[String(name.dropLast())] { return unit }
        throw .invalid(path: path, "expected a duration with a unit of time, found \"\(name)\"")
    }
}
