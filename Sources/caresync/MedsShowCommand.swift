import ArgumentParser
import CareInsights
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

extension DayGrouping: ExpressibleByArgument {}

/// `caresync meds show ID`: one medication's doses and its adherence chart.
struct MedsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "List a medication's doses (taken or not, with the time) and chart its adherence.",
        discussion: """
            Groups are identified as 2016 (year), 2016-08 (month), 2016-W34 (ISO week) or 2016-08-15 \
            (day); every group of the range is charted, empty ones too. As-needed medications list the \
            doses recorded and chart how many were taken.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The medication's activity identifier.")
    var id: String

    @Option(help: "Chart by year, month, week or day.")
    var group: DayGrouping = .week

    @Option(help: ArgumentHelp("The first day (default: the medication's first).", valueName: "YYYY-MM-DD"))
    var from: CalendarDay?

    @Option(help: ArgumentHelp("The last day (default: today in the plan's time zone).", valueName: "YYYY-MM-DD"))
    var to: CalendarDay?

    @Flag(help: "Print the doses and groups as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            let (_, zone) = try await store.configuredPlan()
            let versions = try await store.plan.versions(of: id)
            guard let latest = versions.last else { throw CarePlanStoreError.unknownActivity(id) }
            let today = CalendarDay.containing(Date(), in: zone)
            let first = from ?? versions.map { max($0.effectiveFrom, $0.activity.schedule.start) }.min()!
            let last = to ?? today
            guard first <= last else { throw ValidationError("the first day \(first) is after the last day \(last)") }
            let doses = try await store.outcomes.events(of: id, from: first, through: last)
                .filter { !$0.activity.schedule.asNeeded || $0.outcome != nil }
            let chart = MedicationAdherence(grouping: group, first: first, last: last, doses: doses)
            if json {
                return try emitJSON(MedsShowJSON(id: id, title: latest.activity.title, doses: doses.map(EventJSON.init), groups: chart.groups))
            }
            emit("\(id)  \(latest.activity.title)  \(latest.activity.instructions ?? "")")
            emit("Doses from \(first) to \(last)")
            for dose in doses { emit("  " + describe(dose, today: today, zone: zone)) }
            if doses.isEmpty { emit("  none") }
            emit("Adherence by \(group.rawValue)")
            for line in lines(of: chart) { emit("  " + line) }
        }
    }

    /// `2016-W34  ████████████░░░░░░░░  12/20  60%`: each group, empty ones included.
    private func lines(of chart: MedicationAdherence) -> [String] {
        let widest = chart.groups.map(\.group.count).max() ?? 0
        return zip(chart.groups, chart.fractions).map { group, fraction in
            let figures = switch group.scheduled {
            case 0?: "no doses"
            case let scheduled?: "\(group.taken)/\(scheduled)  \(Int((fraction * 100).rounded()))%"
            case nil: "\(group.taken) taken"
            }
            return "\(TerminalBar.pad(group.group, to: widest))  \(TerminalBar.bar(fraction))  \(figures)"
        }
    }

    private func describe(_ dose: Event, today: CalendarDay, zone: TimeZone) -> String {
        let when = "\(dose.key.day) \(dose.time?.description ?? "--:--")"
        guard let outcome = dose.outcome, outcome.state != .initial else {
            return when + (dose.key.day < today ? "  not taken (nothing recorded)" : "  due")
        }
        let recorded = CalendarDay.containing(outcome.recordedAt, in: zone)
        let time = TimeOfDay.containing(outcome.recordedAt, in: zone)
        let at = (recorded == dose.key.day ? "" : "\(recorded) ") + time.description
        if outcome.state == .completed { return when + "  taken at \(at)" }
        return when + "  not taken, recorded at \(at)" + (outcome.reason.map { ": \($0)" } ?? "")
    }
}

struct MedsShowJSON: Encodable {
    var id: String
    var title: String
    var doses: [EventJSON]
    var groups: [MedicationAdherence.Group]
}
