import CarePlan
import CarePlanStore
import Foundation
import Reminders
import TestSupport
import Testing

/// Missed-dose alerts on a real store, stepped through virtual time in New York, across the
/// night the clocks go back (2026-11-01).
struct MissedDoseMonitorTests {
    let scratch = Scratch()
    let directory: URL
    let saturday = CalendarDay("2026-10-31")!
    let zone = TimeZone(identifier: "America/New_York")!
    let store: CarePlanStore

    init() async throws {
        directory = scratch.url.appendingPathComponent("alerts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
    }

    func at(_ day: Int, _ time: String) -> Date {
        saturday.adding(days: day).date(at: TimeOfDay(time)!, in: zone)
    }

    func key(_ id: String, _ day: Int, _ occurrence: Int = 0) -> EventKey {
        EventKey(activityID: id, day: saturday.adding(days: day), occurrence: occurrence)
    }

    /// Loads a plan of `activities` (each daily from Saturday) with the plan's grace period.
    func load(_ activities: [Activity], graceMinutes: Int = 60) async throws {
        try await store.core.plan.load(
            Plan(title: "T", timeZone: zone, activities: activities, missedDose: MissedDosePolicy(graceMinutes: graceMinutes)),
            effectiveFrom: saturday, device: "t")
    }

    func daily(_ id: String, _ kind: ActivityKind = .intervention, at times: [String], rule: MissedDoseRule = .standard,
               asNeeded: Bool = false) throws -> Activity {
        try Activity(
            identifier: id, kind: kind, title: id.capitalized, result: kind == .assessment ? .scale(min: 0, max: 10) : nil,
            missedDose: rule, schedule: .daily(times: times.map { TimeOfDay($0)! }, start: saturday, asNeeded: asNeeded))
    }

    @Test func aDoseIsMissedWhenItsGracePeriodEndsOnTheWallClockAcrossTheChange() async throws {
        try await load([try daily("dose", at: ["08:00"])])
        let monitor = MissedDoseMonitor(store: store)
        for day in [0, 1] {  // 08:00 EDT on Saturday, 08:00 EST on Sunday
            let before = try await monitor.step(at: at(day, "08:59"))
            #expect(before.alerts.isEmpty)
            #expect(before.next == at(day, "09:00"))
            let missed = try await monitor.step(at: at(day, "09:00"))
            #expect(missed.alerts.map(\.key) == [key("dose", day)])
            #expect(missed.alerts.first?.dueAt == at(day, "08:00"))
            #expect(missed.alerts.first?.time == TimeOfDay("08:00"))
            #expect(try await monitor.step(at: at(day, "09:30")).alerts.isEmpty, "alerted once")
        }
        #expect(at(1, "09:00").timeIntervalSince(at(0, "09:00")) == 25 * 3600)
        let kept = try await store.reminders.alerts(after: 0, raisedSince: .distantPast, limit: 10)
        #expect(kept.map(\.sequence) == [2, 1])
        #expect(kept.allSatisfy { $0.kind == .missed && !$0.critical })
    }

    @Test func theAllClearFollowsTheOutcomeOnceAndOnlyAfterTheAlert() async throws {
        try await load([try daily("dose", at: ["08:00", "20:00"])])
        let monitor = MissedDoseMonitor(store: store)
        _ = try await monitor.step(at: at(0, "09:00"))
        // The 20:00 dose is taken early: no alert for it, and no all clear either.
        try await store.record(Outcome(state: .completed, recordedAt: at(0, "19:00"), device: "w"), for: key("dose", 0, 1))
        try await store.record(Outcome(state: .notCompleted, recordedAt: at(0, "09:20"), device: "w"), for: key("dose", 0, 0))
        let cleared = try await monitor.step(at: at(0, "09:21"))
        #expect(cleared.alerts.map(\.kind) == [.cleared])
        #expect(cleared.alerts.first?.outcome == .notCompleted)
        #expect(cleared.alerts.first?.key == key("dose", 0))
        #expect(try await monitor.step(at: at(0, "21:30")).alerts.isEmpty)
        #expect(try await store.reminders.openMissedDoses().isEmpty)
    }

    @Test func gracePeriodsComeFromTheActivityElseThePlan() async throws {
        try await load([
            try daily("own", at: ["08:00"], rule: MissedDoseRule(graceMinutes: 15, critical: true)),
            try daily("plans", at: ["08:00"]),
        ], graceMinutes: 90)
        let monitor = MissedDoseMonitor(store: store)
        let first = try await monitor.step(at: at(0, "08:15"))
        #expect(first.alerts.map(\.key.activityID) == ["own"])
        #expect(first.alerts.first?.critical == true)
        #expect(first.next == at(0, "09:30"))
        #expect(try await monitor.step(at: at(0, "09:30")).alerts.map(\.key.activityID) == ["plans"])
    }

    @Test func assessmentsAsNeededSlotsAndActivitiesTurnedOffRaiseNone() async throws {
        try await load([
            try daily("pain", .assessment, at: ["08:00"]),
            try daily("asked", .assessment, at: ["08:00"], rule: MissedDoseRule(alerts: true)),
            try daily("rescue", at: ["08:00"], asNeeded: true),
            try daily("vitamin", at: ["08:00"], rule: MissedDoseRule(alerts: false)),
        ])
        let alerts = try await MissedDoseMonitor(store: store).step(at: at(0, "12:00")).alerts
        #expect(alerts.map(\.key.activityID) == ["asked"])
    }

    @Test func aDoseMissedLongBeforeTheMonitorLooksIsNoLongerNews() async throws {
        try await load([try daily("dose", at: ["08:00", "20:00"])])
        // Down all day: the 08:00 dose's grace ended 12 h 1 min ago, the 20:00 one's just now.
        let alerts = try await MissedDoseMonitor(store: store).step(at: at(0, "21:01")).alerts
        #expect(alerts.map(\.key) == [key("dose", 0, 1)])
    }

    @Test func anEventThatLeavesThePlanIsClearedWithoutAnOutcome() async throws {
        try await load([try daily("dose", at: ["08:00"])])
        let monitor = MissedDoseMonitor(store: store)
        _ = try await monitor.step(at: at(0, "09:00"))
        try await store.core.plan.endActivity("dose", from: saturday, device: "t")
        let cleared = try await monitor.step(at: at(0, "10:00")).alerts
        #expect(cleared.map(\.kind) == [.cleared])
        #expect(cleared.first?.outcome == nil)
    }

    @Test func aRestartedMonitorAlertsNothingTwice() async throws {
        try await load([try daily("dose", at: ["08:00"])])
        #expect(try await MissedDoseMonitor(store: store).step(at: at(0, "09:00")).alerts.count == 1)
        let reopened = try await CarePlanStore(path: store.path)
        #expect(try await MissedDoseMonitor(store: reopened).step(at: at(0, "09:05")).alerts.isEmpty)
    }

    @Test func alertsAreSentNewestFirstWithinTheBoundsAsked() async throws {
        try await load([try daily("dose", at: ["08:00"])])
        let monitor = MissedDoseMonitor(store: store)
        for day in 0..<5 { _ = try await monitor.step(at: at(day, "09:00")) }
        let last = try await store.reminders.alerts(after: 2, raisedSince: at(1, "00:00"), limit: 2)
        #expect(last.map(\.sequence) == [5, 4])
        #expect(try await store.reminders.alerts(after: 5, raisedSince: .distantPast, limit: 20).isEmpty)
    }

    @Test func alertsAreKeptThirtyDays() async throws {
        try await load([try daily("dose", at: ["08:00"])])
        let monitor = MissedDoseMonitor(store: store)
        _ = try await monitor.step(at: at(0, "09:00"))
        // Late at night the day's dose is no longer news: nothing new, nothing forgotten yet.
        #expect(try await monitor.step(at: at(29, "23:00")).alerts.isEmpty)
        #expect(try await store.reminders.alerts(after: 0, raisedSince: .distantPast, limit: 10).count == 1)
        #expect(try await monitor.step(at: at(31, "00:30")).alerts.isEmpty)
        #expect(try await store.reminders.alerts(after: 0, raisedSince: .distantPast, limit: 10).isEmpty)
    }
}
