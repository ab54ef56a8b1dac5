import CarePlan
import CarePlanStore
import Foundation
import Reminders
import TestSupport
import Testing

/// The scheduler on a real store, stepped through virtual time.
struct ReminderSchedulerTests {
    let scratch = Scratch()
    let directory: URL
    let monday = CalendarDay("2026-11-02")!
    let zone = TimeZone(identifier: "America/New_York")!
    let store: CarePlanStore

    init() async throws {
        directory = scratch.url.appendingPathComponent("reminders")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let activities = [
            try Activity(identifier: "apple", kind: .intervention, title: "Apple",
                         schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("19:00")!], start: monday)),
            try Activity(identifier: "tonic", kind: .intervention, title: "Tonic", schedule: .daily(occurrences: 1, start: monday)),
        ]
        // The plan's routine gives a single daily dose at noon: the untimed tonic is due then.
        let routine = try DailyRoutine(dosesPerDay: [1: [TimeOfDay("12:00")!]])
        try await store.core.plan.load(Plan(title: "T", timeZone: zone, routine: routine, activities: activities), effectiveFrom: monday, device: "t")
    }

    func at(_ day: Int, _ time: String) -> Date {
        monday.adding(days: day).date(at: TimeOfDay(time)!, in: zone)
    }

    /// Steps from `start` to each next due time until `end`; returns what fired.
    func run(_ scheduler: ReminderScheduler, from start: Date, until end: Date) async throws -> [Reminder] {
        var fired: [Reminder] = []
        var now = start
        while let next = try await scheduler.replan(at: now), next <= end {
            now = max(now, next)
            fired += try await scheduler.step(at: now)
        }
        return fired
    }

    @Test func aWeekFiresEveryReminderOnceAndKeepsTheWindowInTheStore() async throws {
        let scheduler = ReminderScheduler(store: store)
        try await scheduler.replan(at: at(0, "00:00"))
        let pending = try await store.reminders.all()
        #expect(pending.count == 15 * 3)  // today and 14 days ahead: fewer than 64
        #expect(pending.first?.reminder.key.description == "apple@2026-11-02#0")
        let fired = try await run(scheduler, from: at(0, "00:00"), until: at(7, "00:00"))
        #expect(fired.count == 7 * 3)
        #expect(fired == fired.sorted())
        #expect(Set(fired.map(\.key)).count == fired.count)
        #expect(fired.filter { $0.key.activityID == "tonic" }.allSatisfy { $0.time == TimeOfDay("12:00") })
    }

    @Test func aCompletionFromAnotherProcessWithdrawsTheReminder() async throws {
        let scheduler = ReminderScheduler(store: store)
        try await scheduler.replan(at: at(0, "00:00"))
        // Another process (its own connection to the file) records the 19:00 apple early.
        let other = try await CarePlanStore(path: store.path)
        try await other.record(Outcome(state: .completed, recordedAt: at(0, "17:00"), device: "cli"),
                             for: EventKey(activityID: "apple", day: monday, occurrence: 1))
        let fired = try await run(scheduler, from: at(0, "00:00"), until: at(1, "00:00"))
        #expect(fired.map(\.key.description) == ["apple@2026-11-02#0", "tonic@2026-11-02#0"])
        #expect(try await !store.reminders.all().contains { $0.reminder.key == EventKey(activityID: "apple", day: monday, occurrence: 1) })
    }

    @Test func theWindowIsCappedAt64AndToppedUpAsRemindersFire() async throws {
        let times = (0..<8).map { TimeOfDay(hour: 6 + 2 * $0, minute: 0)! }
        let many = try (0..<20).map {
            try Activity(identifier: "m\($0)", kind: .intervention, title: "M\($0)", schedule: .daily(times: times, start: monday))
        }
        try await store.core.plan.load(Plan(title: "T", timeZone: zone, activities: many), effectiveFrom: monday, device: "t")
        let scheduler = ReminderScheduler(store: store)
        try await scheduler.replan(at: at(0, "00:00"))
        #expect(try await store.reminders.all().count == 64)
        let fired = try await scheduler.step(at: at(0, "06:00"))
        #expect(fired.count == 20)
        let window = try await store.reminders.all()
        #expect(window.count == 64)
        #expect(window.allSatisfy { $0.reminder.dueAt > at(0, "06:00") })
    }

    @Test func aRestartFiresNothingTwiceAndAppliesTheGraceRule() async throws {
        var scheduler = ReminderScheduler(store: store)
        let morning = try await run(scheduler, from: at(0, "00:00"), until: at(0, "09:00"))
        #expect(morning.map(\.key.description) == ["apple@2026-11-02#0"])
        // Down from 09:00. Restarted at 12:10: the noon tonic is 10 minutes late, within grace.
        scheduler = ReminderScheduler(store: try await CarePlanStore(path: store.path))
        try await scheduler.replan(at: at(0, "09:00"))
        #expect(try await scheduler.catchUp(at: at(0, "12:10")).map(\.key.description) == ["tonic@2026-11-02#0"])
        #expect(try await scheduler.step(at: at(0, "12:10")).isEmpty)
        // Down again until 19:20: the 19:00 apple is 20 minutes late, past grace: missed.
        scheduler = ReminderScheduler(store: try await CarePlanStore(path: store.path))
        #expect(try await scheduler.catchUp(at: at(0, "19:20")).isEmpty)
        #expect(try await store.reminders.all([.missed]).map(\.reminder.key.description) == ["apple@2026-11-02#1"])
        #expect(try await scheduler.step(at: at(0, "19:20")).isEmpty)
        let fired = try await store.reminders.all([.fired]).map(\.reminder.key.description)
        #expect(fired == ["apple@2026-11-02#0", "tonic@2026-11-02#0"])
    }

    @Test func aSnoozedReminderFiresLaterOnce() async throws {
        let scheduler = ReminderScheduler(store: store)
        let first = try #require(try await run(scheduler, from: at(0, "00:00"), until: at(0, "08:00")).first)
        try await scheduler.snooze(first, minutes: 10, at: at(0, "08:01"))
        #expect(try await scheduler.step(at: at(0, "08:05")).isEmpty)
        #expect(try await scheduler.step(at: at(0, "08:11")).map(\.key) == [first.key])
        #expect(try await scheduler.step(at: at(0, "08:30")).isEmpty)
    }
}
