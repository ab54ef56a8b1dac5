import Foundation

extension CalendarDay {
    /// The calendar day that contains `date` in `timeZone`.
    public static func containing(_ date: Date, in timeZone: TimeZone) -> CalendarDay {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        return CalendarDay(daysSinceEpoch: Int((local / 86_400).rounded(.down)))
    }

    /// The instant at which the wall clock in `timeZone` shows `time` on this day.
    ///
    /// Daylight-saving rules: a time that occurs twice (autumn) resolves to its
    /// first occurrence; a time skipped by the clock (spring) moves forward by the
    /// length of the gap, so 02:30 on a spring-forward day becomes 03:30. Either
    /// way every wall time maps to exactly one instant.
    public func date(at time: TimeOfDay, in timeZone: TimeZone) -> Date {
        let local = Double(daysSinceEpoch * 86_400 + time.minutes * 60)
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local + 86_400))
        let valid = Set([before, after]).map { local - Double($0) }.filter { instant in
            Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))) == local - instant
        }
        if let earliest = valid.min() {
            return Date(timeIntervalSince1970: earliest)
        }
        // In a gap: read the wall time with the offset in force before the change.
        return Date(timeIntervalSince1970: local - Double(before))
    }

    /// The first instant of this day in `timeZone`.
    public func start(in timeZone: TimeZone) -> Date {
        date(at: TimeOfDay(hour: 0, minute: 0)!, in: timeZone)
    }
}

extension TimeOfDay {
    /// The wall-clock time (to the minute) that `date` shows in `timeZone`.
    public static func containing(_ date: Date, in timeZone: TimeZone) -> TimeOfDay {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let minutes = Int((local / 60).rounded(.down)) - CalendarDay.containing(date, in: timeZone).daysSinceEpoch * 1440
        return TimeOfDay(hour: minutes / 60, minute: minutes % 60)!
    }
}
