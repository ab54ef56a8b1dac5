import CareLanguage
import CarePlan
import Foundation

/// The insights of a range of days: the messages (alerts, comparisons, the care team's tips)
/// and the grouped bar chart, computed from the record alone. Pure: the caller reads the
/// events (``daysToRead(for:rules:)`` says which) and gives the time.
public struct Insights: Sendable, Encodable {
    public var first: CalendarDay
    public var last: CalendarDay
    public var messages: [InsightMessage]
    public var chart: GroupedBarChart
    /// What the messages and the chart were computed from.
    public let record: InsightRecord

    enum CodingKeys: String, CodingKey { case first, last, messages, chart }

    /// Insights of `days`, from `events` of at least ``daysToRead(for:rules:)``, as of `now`
    /// in the plan's time zone (an event counts once due: see ``ActivityDay``), worded in
    /// `language`; the chart also shows the `measurements` taken in those days.
    public init(
        days: ClosedRange<CalendarDay>, events: [Event], measurements: [MeasurementSample] = [], rules: InsightRules, timeZone: TimeZone,
        now: Date, grouping: DayGrouping = .day, language: Language
    ) {
        record = InsightRecord(events: events, now: now, timeZone: timeZone)
        first = days.lowerBound
        last = days.upperBound
        let tips = rules.tips.filter { $0.overlaps(days) }.map { tip in
            InsightMessage(
                kind: .tip, rule: "tip", activities: [], title: tip.title, text: tip.text,
                days: [tip.from, tip.until].compactMap { $0 }, figures: [])
        }
        let today = CalendarDay.containing(now, in: timeZone)
        let wording = InsightWording(language: language)
        messages = Alerts(record: record, rules: rules, wording: wording, days: days, windowEnd: min(days.upperBound, today)).messages
            + Comparisons(record: record, rules: rules, wording: wording, days: days).messages + tips
        chart = GroupedBarChart(
            record, measurements: DailyMeasurement.summaries(measurements, in: timeZone), days: days, grouping: grouping, wording: wording)
    }

    /// The days whose events the insights of `days` need: the adherence window (the last days
    /// up to today) may reach back before the first.
    public static func daysToRead(for days: ClosedRange<CalendarDay>, rules: InsightRules) -> ClosedRange<CalendarDay> {
        days.lowerBound.adding(days: 1 - rules.adherence.days)...days.upperBound
    }
}
