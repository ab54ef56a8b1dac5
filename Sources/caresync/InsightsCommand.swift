import ArgumentParser
import CareInsights
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

/// `caresync insights`: the messages and the chart of a week or a range of days.
struct InsightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract: "Show what the record says: alerts, comparisons and tips, and a chart per day or week.",
        discussion: """
            The rules (thresholds, comparisons, tips) are the plan document's "insights"; without them, \
            the standard alerts. An event counts once it is due, so today's later doses are not missed yet.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var period: PeriodOptions

    @Option(help: "Chart by day or by week (default: by day up to 14 days, else by week).")
    var by: DayGrouping?

    @Option(help: ArgumentHelp("The language of the messages: en or de.", valueName: "code"))
    var lang = "en"

    @Flag(help: "Print the messages and the chart as JSON, with every number.")
    var json = false

    func validate() throws {
        if let by, ![.day, .week].contains(by) { throw ValidationError("--by takes day or week") }
    }

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            let (info, zone) = try await store.configuredPlan()
            let now = Date()
            let days = try period.days(today: CalendarDay.containing(now, in: zone))
            let read = Insights.daysToRead(for: days, rules: info.insights)
            let insights = Insights(
                days: days, events: try await store.outcomes.events(from: read.lowerBound, through: read.upperBound),
                measurements: try await store.measurements.list(on: days, in: zone).map(\.measurement), rules: info.insights, timeZone: zone, now: now,
                grouping: by ?? (days.count > 14 ? .week : .day), language: try Language(lang))
            if json { return try emitJSON(insights) }
            for line in InsightsText(title: info.title ?? "Care plan", zone: zone, insights: insights).lines { emit(line) }
        }
    }
}

/// Insights as terminal lines: the messages, then one block of bars per series.
struct InsightsText {
    let title: String
    let zone: TimeZone
    let insights: Insights

    var lines: [String] {
        var lines = ["\(title) · insights \(insights.first) – \(insights.last) · \(zone.identifier)", "", "Messages"]
        if insights.messages.isEmpty { lines.append("  none") }
        for message in insights.messages {
            let mark = switch message.kind {
            case .alert: "!"
            case .comparison: "≈"
            case .tip: "i"
            }
            lines += ["  \(mark) \(message.title)", "    \(message.text)"]
        }
        let chart = insights.chart
        lines += ["", "Chart by \(chart.grouping.rawValue)"]
        let labels = chart.groups.map { group in
            chart.grouping == .day ? "\(group.first.weekday.name.prefix(3).capitalized) \(group.first)" : group.identifier
        }
        let widest = labels.map(\.count).max() ?? 0
        for series in chart.series {
            lines.append("  \(series.title)  (\(Self.describe(series)))")
            for (label, (value, fraction)) in zip(labels, zip(series.values, series.normalized)) {
                let figure = value.map { Self.number($0) + (series.unit.map { $0 == "%" ? " %" : " \($0)" } ?? "") } ?? "no data"
                lines.append("    \(TerminalBar.pad(label, to: widest))  \(TerminalBar.bar(fraction))  \(figure)")
            }
        }
        return lines
    }

    /// `adherence, 0–100 %`, `mean, 0 (none) – 10 (worst)`.
    static func describe(_ series: ChartSeries) -> String {
        let (low, high) = series.axis.ends(number)
        return "\(series.measure.rawValue), \(low)–\(high)\(series.unit.map { " \($0)" } ?? "")"
    }

    static func number(_ value: Double) -> String { InsightFormat.number(value) }
}
