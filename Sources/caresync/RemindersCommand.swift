import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

struct RemindersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders", abstract: "The primary's pending reminders.",
        subcommands: [List.self, Next.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending reminders, nearest first (at most 64).")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Print one JSON object per reminder and line.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let (_, zone) = try await store.configuredPlan()
                for entry in try await store.reminders.all() { try show(entry, zone: zone, json: json) }
            }
        }
    }

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The next reminder due.")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Print it as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let (_, zone) = try await store.configuredPlan()
                guard let next = try await store.reminders.all().first else {
                    emit(json ? "null" : "No reminder pending.")
                    return
                }
                try show(next, zone: zone, json: json)
            }
        }
    }
}

/// One reminder as `reminders --json` prints it.
struct ReminderJSON: Encodable {
    var activity: String
    var day: CalendarDay
    var occurrence: Int
    var title: String
    var time: TimeOfDay
    var dueAt: String
    var status: ReminderStatus
}

private func show(_ entry: ReminderEntry, zone: TimeZone, json: Bool) throws {
    let reminder = entry.reminder
    if json {
        try emitJSON(ReminderJSON(
            activity: reminder.key.activityID, day: reminder.key.day, occurrence: reminder.key.occurrence, title: reminder.title,
            time: reminder.time, dueAt: ISO8601.string(from: reminder.dueAt), status: entry.status))
    } else {
        // People read the patient's wall clock; JSON has the one documented UTC form.
        let local = "\(CalendarDay.containing(reminder.dueAt, in: zone)) \(TimeOfDay.containing(reminder.dueAt, in: zone))"
        emit("\(local)  \(reminder.title)  \(reminder.key)" + (entry.status == .snoozed ? "  (snoozed)" : ""))
    }
}
