import ArgumentParser
import CareCore
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

struct CompleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Record an occurrence as done (with a result) or as not done.",
        discussion: """
            Examples:
              caresync complete golden-apple --occurrence 0
              caresync complete pain --occurrence 0 --value 7
              caresync complete blood-pressure --occurrence 0 --value 120 --value 80
              caresync complete weight --occurrence 0 --value 160 --unit lb
              caresync complete golden-apple --occurrence 2 --not-done --reason "out of apples"
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The activity's identifier.")
    var activity: String

    @Option(help: "The occurrence, counting from 0.")
    var occurrence: Int

    @Option(help: ArgumentHelp("The event's day (default: today in the plan's time zone).", valueName: "YYYY-MM-DD"))
    var date: CalendarDay?

    // Taken whatever it begins with: a value may be negative (`--value -5`).
    @Option(
        parsing: .unconditionalSingleValue,
        help: "A result value; repeat for results with several values (systolic, then diastolic).")
    var value: [String] = []

    @Option(help: ArgumentHelp(
        "The unit of the values (default: the assessment's unit): converted into the assessment's (lb to kg, °F to °C, mg/dL to mmol/L), refused if it does not convert."))
    var unit: String?

    @Flag(help: "Record the occurrence as not done.")
    var notDone = false

    @Option(help: "Why it was not done.")
    var reason: String?

    @Flag(help: "Record an outcome for a day after today (refused otherwise: a dose is not taken in advance).")
    var allowFuture = false

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            let outcomes = CareCore(store: store).outcomes
            let day: CalendarDay
            if let date { day = date } else { day = try await store.today() }
            let key = EventKey(activityID: activity, day: day, occurrence: occurrence)
            let values: [OutcomeValue]
            do {
                values = notDone ? [] : try await outcomes.values(value, unit: unit, for: key)
            } catch let error as ResultError {
                throw UsageError(description: "\(error)")
            }
            let recorder = Recorder.commandLine(device: options.device, futureDays: allowFuture ? .allowed : .refused)
            let outcome = Outcome(
                state: notDone ? .notCompleted : .completed, values: values, recordedAt: Date(), device: recorder.device, reason: reason)
            let receipt = try await outcomes.record(outcome, for: key, by: recorder)
            if let rejection = receipt.rejection {
                let detail = receipt.detail ?? "\(rejection)"
                throw UsageError(description: rejection == .futureDay ? detail + "; add --allow-future to record it anyway" : detail)
            }
            let result = values.isEmpty ? "" : " (" + values.map(\.formatted).joined(separator: "/") + ")"
            emit("\(key): \(outcome.state == .completed ? "done" : "not done")\(result), revision \(receipt.revision ?? 0)")
        }
    }
}
