import ArgumentParser
import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Reminders

struct ReminderBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders",
        abstract: "Time to plan the reminder window for many activities, and to re-plan after one completion.")

    @Option(help: "Activities in the plan.")
    var activities = 1000

    @Option(help: "Occurrences a day of each, with times.")
    var occurrences = 8

    @Option(help: "Repetitions of each measurement.")
    var repetitions = 20

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-reminders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let zone = TimeZone(identifier: "Europe/Vienna")!
        let today = CalendarDay.containing(Date(), in: zone)
        let times = (0..<occurrences).map { TimeOfDay(hour: 6 + $0 * 16 / max(occurrences, 1), minute: $0 % 60)! }
        let plan = try Plan(title: "Bench", timeZone: zone, activities: (0..<activities).map {
            try Activity(identifier: String(format: "r%04d", $0), kind: .intervention, title: "R\($0)",
                         schedule: .daily(times: times, start: today))
        })
        try await CareCore(store: store).plan.load(plan, effectiveFrom: today, device: "bench")
        let scheduler = ReminderScheduler(store: store)
        let morning = today.start(in: zone)

        print("caresync-bench reminders: \(activities) activities × \(occurrences) occurrences a day")
        let first = try await Samples.measure(repetitions) { _ in try await scheduler.replan(at: morning) }
        report("plan the window (64 pending)", first.summary)
        let window = try await store.reminders.all()
        report("pending after planning", "\(window.count)")
        var keys = window.map(\.reminder.key)[...]
        let replans = try await Samples.measure(min(repetitions, keys.count)) { _ in
            _ = try await CareCore(store: store).outcomes.record(
                Outcome(state: .completed, recordedAt: Date(), device: "bench"), for: keys.removeFirst(),
                by: .commandLine(device: "bench", futureDays: .refused))
            try await scheduler.replan(at: morning)
        }
        report("one completion, then re-plan", replans.summary)
        if let peak = peakResidentMemory() { report("peak RSS", bytes(peak)) }
    }
}
