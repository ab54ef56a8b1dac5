import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Show the care card: each activity's occurrences (○ to do, ● done, × not done) and adherence.")

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("The day to show (default: today in the plan's time zone).", valueName: "YYYY-MM-DD"))
    var date: CalendarDay?

    @Flag(help: "Print the care card as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            let (info, zone) = try await store.configuredPlan()
            let day = date ?? CalendarDay.containing(Date(), in: zone)
            let events = try await store.outcomes.events(on: day)
            let summary = CompletionSummary(day: day, events: events)
            if json {
                try await emitJSON(CareCardJSON(
                    plan: .init(id: info.planID, title: info.title, timeZone: zone.identifier), day: day,
                    revision: try store.revision(), adherence: TallyJSON(summary.overall),
                    interventions: TallyJSON(summary.interventions), assessments: TallyJSON(summary.assessments),
                    events: events.map(EventJSON.init)))
            } else {
                emit(CareCard(title: info.title ?? "Care plan", zone: zone, day: day, events: events, summary: summary).description)
            }
        }
    }
}

/// The `today --json` document.
struct CareCardJSON: Encodable {
    struct PlanJSON: Encodable {
        var id: String
        var title: String?
        var timeZone: String
    }

    var plan: PlanJSON
    var day: CalendarDay
    var revision: Int
    var adherence: TallyJSON
    var interventions: TallyJSON
    var assessments: TallyJSON
    var events: [EventJSON]
}

/// The care card as text.
struct CareCard: CustomStringConvertible {
    let title: String
    let zone: TimeZone
    let day: CalendarDay
    let events: [Event]
    let summary: CompletionSummary

    var description: String {
        var lines = ["\(title) · \(day.weekday.name.capitalized) \(day) · \(zone.identifier)"]
        let overall = summary.overall
        lines.append(overall.fraction.map {
            "Adherence \(Int(($0 * 100).rounded()))% (\(overall.completed) of \(overall.total) done)"
        } ?? "Nothing scheduled")
        let byActivity = Dictionary(grouping: events, by: \.key.activityID)
        let order = events.map(\.key.activityID).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let width = min(36, events.map(\.activity.title.count).max() ?? 0)
        for kind in ActivityKind.allCases {
            let ids = order.filter { byActivity[$0]!.first!.activity.kind == kind }
            guard !ids.isEmpty else { continue }
            lines.append("")
            lines.append(kind == .intervention ? "Interventions" : "Assessments")
            for id in ids {
                let occurrences = byActivity[id]!
                let name = occurrences[0].activity.title.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(name)  " + (kind == .intervention ? marks(occurrences) : results(occurrences)))
            }
        }
        return lines.joined(separator: "\n")
    }

    private func marks(_ events: [Event]) -> String {
        let symbols = events.map { event in
            switch event.state {
            case .completed: "●"
            case .notCompleted: "×"
            case .initial: "○"
            }
        }.joined()
        let times = events.compactMap(\.time).map(\.description).joined(separator: " ")
        return times.isEmpty ? symbols : "\(symbols)  \(times)"
    }

    private func results(_ events: [Event]) -> String {
        events.map { event in
            switch event.state {
            case .completed:
                event.outcome.map { $0.values.isEmpty ? "●" : $0.values.map(\.formatted).joined(separator: "/") } ?? "●"
            case .notCompleted: "×"
            case .initial: "○"
            }
        }.joined(separator: "  ")
    }
}
