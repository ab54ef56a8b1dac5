import CareCore
import ArgumentParser
import CarePlan
import Foundation
import LineOutput

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create the store and set the plan's title, time zone and the patient's routine.",
        discussion: """
            The routine (when the patient wakes, eats and goes to bed) gives the times of day parts \
            such as "before breakfast" and of doses an order gives no time; see "Daily routine" in \
            Sources/CarePlanDocument/CarePlanDocument.docc/PlanDocuments.md. Options left out keep the store's routine, or the standard one.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "The plan's title.")
    var title = "Care plan"

    @Option(help: ArgumentHelp("The patient's IANA time zone (default: this machine's).", valueName: "zone"))
    var timeZone: String?

    @Option(help: ArgumentHelp("When the patient wakes (default 07:00).", valueName: "HH:MM"))
    var wake: TimeOfDay?

    @Option(help: ArgumentHelp("Breakfast (default 08:00).", valueName: "HH:MM"))
    var breakfast: TimeOfDay?

    @Option(help: ArgumentHelp("Lunch (default 12:30).", valueName: "HH:MM"))
    var lunch: TimeOfDay?

    @Option(help: ArgumentHelp("Dinner (default 18:30).", valueName: "HH:MM"))
    var dinner: TimeOfDay?

    @Option(help: ArgumentHelp("Bedtime (default 22:00).", valueName: "HH:MM"))
    var bed: TimeOfDay?

    func run() async throws {
        try await reportingFailures {
            let zoneName = timeZone ?? TimeZone.current.identifier
            guard let zone = TimeZone(identifier: zoneName) else {
                throw UsageError(description: PlanError.unknownTimeZone(zoneName).description)
            }
            let store = try await options.openOrCreate()
            var routine = try await store.plan.info().routine
            do throws(RoutineError) {
                routine = try DailyRoutine(
                    wake: wake ?? routine.wake, breakfast: breakfast ?? routine.breakfast, lunch: lunch ?? routine.lunch,
                    dinner: dinner ?? routine.dinner, bed: bed ?? routine.bed, dayParts: routine.dayParts,
                    dosesPerDay: routine.dosesPerDay, intervalStart: routine.intervalStart)
            } catch {
                throw UsageError(description: error.description)
            }
            let info = try await CareCore(store: store).plan.configure(title: title, timeZone: zone, routine: routine, device: options.device)
            emit("Store \(store.path): plan \"\(title)\" (\(zone.identifier)), id \(info.planID)")
        }
    }
}
