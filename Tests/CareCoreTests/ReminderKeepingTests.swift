import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// Each of ``ReminderKeeping``'s rules, and the readers' cursors, on a store in a scratch file.
struct ReminderKeepingTests {
    let empty: ScratchStore
    var keeping: ReminderKeeping { empty.store.core.reminders }

    init() async throws { empty = try await ScratchStore() }

    func reminder(_ occurrence: Int, dueIn seconds: TimeInterval) -> Reminder {
        Reminder(
            key: EventKey(activityID: "apple", day: monday, occurrence: occurrence), title: "Apple",
            time: TimeOfDay(hour: 8, minute: occurrence)!, dueAt: empty.clock.now.addingTimeInterval(seconds))
    }

    func statuses() async throws -> [Int: ReminderStatus] {
        Dictionary(uniqueKeysWithValues: try await empty.store.reminders.all(Set(ReminderStatus.allCases)).map { ($0.reminder.key.occurrence, $0.status) })
    }

    @Test("Reminder rule 1, a reminder is delivered once; a snooze moves it whatever it was")
    func deliveredOnce() async throws {
        let first = reminder(0, dueIn: 0)
        #expect(try await keeping.settle(first, as: .fired, at: empty.clock.now))
        #expect(try await !keeping.settle(first, as: .fired, at: empty.clock.now))
        #expect(try await !keeping.settle(first, as: .missed, at: empty.clock.now))
        var later = first
        later.dueAt = empty.clock.now.addingTimeInterval(600)
        #expect(try await keeping.settle(later, as: .snoozed, at: empty.clock.now))
        #expect(try await empty.store.reminders.all([.snoozed]).map(\.reminder.dueAt) == [later.dueAt])
    }

    @Test("Reminder rule 2, only a reminder still waiting is withdrawn")
    func withdrawOnlyWaiting() async throws {
        try await keeping.replacePending(with: [reminder(0, dueIn: 60), reminder(1, dueIn: 120)], keepingDueBefore: empty.clock.now)
        try await keeping.settle(reminder(1, dueIn: 120), as: .fired, at: empty.clock.now)
        try await keeping.withdraw(reminder(0, dueIn: 60).key)
        try await keeping.withdraw(reminder(1, dueIn: 120).key)
        #expect(try await statuses() == [1: .fired])
    }

    @Test("Reminder rule 3, the window replaces only what waits")
    func windowReplacesWaiting() async throws {
        try await keeping.replacePending(
            with: [reminder(0, dueIn: -60), reminder(1, dueIn: 60), reminder(2, dueIn: 120), reminder(3, dueIn: 180)],
            keepingDueBefore: empty.clock.now.addingTimeInterval(-3600))
        try await keeping.settle(reminder(3, dueIn: 180), as: .missed, at: empty.clock.now)
        var moved = reminder(2, dueIn: 120)
        moved.title = "Apple, again"
        try await keeping.replacePending(with: [moved, reminder(3, dueIn: 180)], keepingDueBefore: empty.clock.now)
        #expect(try await statuses() == [0: .pending, 2: .pending, 3: .missed])
        #expect(try await empty.store.reminders.all([.pending]).map(\.reminder.title) == ["Apple", "Apple, again"])
    }

    @Test("Reminder rule 4, an alert is raised once per event and kind")
    func alertOnce() async throws {
        let missed = DoseAlert(
            kind: .missed, key: reminder(0, dueIn: 0).key, title: "Apple", time: TimeOfDay(hour: 8, minute: 0)!,
            dueAt: empty.clock.now, raisedAt: empty.clock.now, critical: false)
        let kept = try await keeping.raise([missed, missed])
        #expect(kept.count == 1 && kept[0].sequence > 0)
        #expect(try await keeping.raise([missed]).isEmpty)
        let clear = missed.cleared(at: empty.clock.now, outcome: .completed)
        #expect(try await keeping.raise([clear, missed]).map(\.kind) == [.cleared])
        #expect(try await empty.store.reminders.alerts(after: 0, raisedSince: .distantPast, limit: 10).count == 2)
    }

    @Test("A reader's cursor never moves back")
    func cursorNeverBack() async throws {
        try await empty.store.core.cursors.advance("export", to: 5)
        try await empty.store.core.cursors.advance("export", to: 3)
        #expect(try await empty.store.measurements.cursor("export") == 5)
    }
}
