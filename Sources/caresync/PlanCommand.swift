import CareCore
import ArgumentParser
import CarePlan
import CarePlanDocument
import CarePlanStore
import Foundation
import LineOutput

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Load a care-plan document or show the plan.",
        subcommands: [Load.self, Show.self])

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a care-plan document (JSON); loading it again changes nothing.",
            discussion: """
                Changed activities get a new version effective from --effective (default: today in \
                the plan's time zone); earlier days keep the old one. Activities an earlier load added \
                that the file no longer lists are ended. A file with any error writes nothing.
                """)

        @OptionGroup var options: StoreOptions

        @Argument(help: "The plan document.")
        var file: String

        @Option(help: ArgumentHelp("The day changes take effect (YYYY-MM-DD).", valueName: "day"))
        var effective: CalendarDay?

        @Flag(help: "Print what changed as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.openOrCreate()
                let stored = try await store.plan.info()
                // Schedules without a start begin on the plan's start day, fixed by the first load.
                let provisionalDay = effective ?? CalendarDay.containing(Date(), in: stored.timeZone ?? .current)
                let plan = try PlanDocument.load(path: file, defaultStart: stored.start ?? provisionalDay)
                let day = effective ?? CalendarDay.containing(Date(), in: plan.timeZone)
                let report = try await CareCore(store: store).plan.load(plan, effectiveFrom: day, device: options.device)
                if json {
                    try emitJSON(report)
                    return
                }
                emit("Loaded \"\(plan.title)\" from \(file), effective \(day): "
                      + "\(report.added.count) added, \(report.updated.count) updated, "
                      + "\(report.ended.count) ended, \(report.unchanged.count) unchanged; revision \(report.revision)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the plan: its activities (newest versions) and contacts.",
            discussion: "With --json, prints the plan as a care-plan document that `plan load` reads back.")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Print the plan as a care-plan document.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let (info, zone) = try await store.configuredPlan()
                let versions = try await store.plan.activities()
                let plan = try Plan(
                    title: info.title ?? "", patient: info.patient, start: info.start, timeZone: zone, routine: info.routine,
                    activities: versions.map(\.activity), contacts: try await store.plan.contacts(),
                    insights: info.insights.naming(only: versions.map(\.activity)), missedDose: info.missedDose)
                if json {
                    emitVerbatim(String(decoding: try PlanDocument.encode(plan), as: UTF8.self))
                    return
                }
                emit("\(plan.title) · \(zone.identifier) · plan \(info.planID) · revision \(try await store.revision())")
                let routine = info.routine
                emit("Routine: wake \(routine.wake), breakfast \(routine.breakfast), lunch \(routine.lunch), "
                     + "dinner \(routine.dinner), bed \(routine.bed)")
                for version in versions {
                    let activity = version.activity
                    emit("  \(activity.identifier)  \(activity.kind.rawValue)  \"\(activity.title)\"  "
                          + "\(ScheduleSummary(activity.schedule))  (version \(version.version) from \(version.effectiveFrom))")
                }
                if !plan.contacts.isEmpty { emit("Contacts") }
                for contact in plan.contacts {
                    let reach = [contact.phone, contact.email].compactMap { $0 }.joined(separator: ", ")
                    emit("  [\(contact.monogram)] \(contact.fullName)"
                          + (contact.relation.map { ", \($0)" } ?? "") + (reach.isEmpty ? "" : " · \(reach)"))
                }
            }
        }
    }
}
