import CarePlan
import Foundation

extension FHIRDateTime {
    /// `date` as a FHIR `dateTime` on the wall clock of `timeZone`, with milliseconds and
    /// that zone's offset at that instant: `2026-11-23T08:00:00.000+01:00`. Rounded to the
    /// nearest millisecond, as `ISO8601` writes the same instant in every JSON output.
    public static func string(_ date: Date, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded()) + offset * 1000
        let dayMilliseconds = 86_400_000
        let day = CalendarDay(daysSinceEpoch: Int((Double(milliseconds) / Double(dayMilliseconds)).rounded(.down)))
        let time = milliseconds - day.daysSinceEpoch * dayMilliseconds
        let clock = String(
            format: "%02d:%02d:%02d.%03d", time / 3_600_000, time / 60_000 % 60, time / 1000 % 60, time % 1000)
        let zone = offset == 0
            ? "Z" : (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(offset) / 3600, abs(offset) / 60 % 60)
        return "\(day)T\(clock)\(zone)"
    }
}
