import CarePlan
import CarePlanStore
import Foundation
import Testing

struct EventStoreTests {
    let scratch = Scratch()
    let clock = ManualClock()
    let store: CarePlanStore

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
        try await store.core.plan.addActivity(intervention("apple", times: ["08:00", "13:00", "19:00"]), effectiveFrom: monday, device: "t")
        try await store.core.plan.addActivity(painScale(resettable: true), effectiveFrom: monday, device: "t")
        let weekly = try Activity(
            identifier: "weight", kind: .assessment, title: "Weight", result: .number(unit: "kg"),
            schedule: .weekly([0, 1, 0, 0, 1, 0, 0], start: monday))
        try await store.core.plan.addActivity(weekly, effectiveFrom: monday, device: "t")
    }

    @Test func eventsOfADayByKind() async throws {
        let events = try await store.outcomes.events(on: monday)
        #expect(events.map(\.key.description) == [
            "apple@2026-11-02#0", "apple@2026-11-02#1", "apple@2026-11-02#2", "pain@2026-11-02#0", "weight@2026-11-02#0",
        ])
        #expect(try await store.outcomes.events(on: monday, kind: .assessment).map(\.key.activityID) == ["pain", "weight"])
        #expect(try await store.outcomes.events(on: monday.adding(days: 1)).count == 4)
        #expect(try await store.outcomes.events(on: monday.adding(days: -1)).isEmpty)
    }

    @Test func outcomesWithResults() async throws {
        let key = EventKey(activityID: "pain", day: monday, occurrence: 0)
        let revision = try await store.record(done("watch", values: [OutcomeValue(.integer(4))]), for: key)
        let change = try #require(try await store.history(after: revision - 1).first)
        #expect(change.revision == revision)
        #expect(change.kind == .outcomeRecorded)
        #expect(change.event == key)
        #expect(change.device == "watch")
        #expect(change.committedAt == clock.now)
        let event = try await store.outcomes.event(key)
        #expect(event.state == .completed)
        #expect(event.outcome?.values == [OutcomeValue(.integer(4))])
        let missed = Outcome(state: .notCompleted, recordedAt: Date(), device: "cli", reason: "asleep")
        try await store.record(missed, for: EventKey(activityID: "apple", day: monday, occurrence: 1))
        #expect(try await store.outcomes.events(of: "apple", on: monday).map(\.state) == [.initial, .notCompleted, .initial])
    }

    @Test func completionStatusPerDayByKind() async throws {
        for (key, outcome) in [
            (EventKey(activityID: "apple", day: monday, occurrence: 0), done()),
            (EventKey(activityID: "apple", day: monday, occurrence: 1), done()),
            (EventKey(activityID: "pain", day: monday, occurrence: 0), done(values: [OutcomeValue(.integer(2))])),
            (EventKey(activityID: "apple", day: monday.adding(days: 1), occurrence: 0),
             Outcome(state: .notCompleted, recordedAt: Date(), device: "t")),
        ] { try await store.record(outcome, for: key) }
        let summaries = try await store.outcomes.completion(from: monday.adding(days: -1), through: monday.adding(days: 2))
        #expect(summaries.map(\.day) == [-1, 0, 1, 2].map { monday.adding(days: $0) })
        #expect(summaries[0].overall == Tally(completed: 0, total: 0))
        #expect(summaries[1].interventions == Tally(completed: 2, total: 3))
        #expect(summaries[1].assessments == Tally(completed: 1, total: 2))
        #expect(summaries[2].overall == Tally(completed: 0, total: 4))
        // The same figures as summarising the day's events directly.
        for summary in summaries {
            #expect(await summary == CompletionSummary(day: summary.day, events: try store.outcomes.events(on: summary.day)))
        }
    }

    /// Every outcome change stays in the history with its revision, device and time.
    @Test func historyKeepsEveryChange() async throws {
        let key = EventKey(activityID: "pain", day: monday, occurrence: 0)
        let start = try await store.revision()
        try await store.record(done("watch", values: [OutcomeValue(.integer(6))]), for: key)
        clock.advance(by: 60)
        try await store.record(done("phone", values: [OutcomeValue(.integer(2))]), for: key)
        let history = try await store.history(after: start)
        #expect(history.map(\.revision) == [start + 1, start + 2])
        #expect(history.map(\.device) == ["watch", "phone"])
        #expect(history.map { $0.outcome?.values.first } == [OutcomeValue(.integer(6)), OutcomeValue(.integer(2))])
        #expect(history[1].committedAt.timeIntervalSince(history[0].committedAt) == 60)
        #expect(try await store.history(activityID: "pain").count == 3)
        #expect(try await store.outcomes.event(key).outcome?.device == "phone")
    }

    /// What a follower of the change log reads at each look: the newest revision and the
    /// changes after its own, a page at most, in one read.
    @Test func theNewestRevisionAndTheChangesAfterOneAreReadTogether() async throws {
        let start = try await store.revision()
        for occurrence in 0..<3 {
            try await store.record(done(), for: EventKey(activityID: "apple", day: monday, occurrence: occurrence))
        }
        let none = try await store.newestAndChanges(after: nil, limit: 10)
        #expect(none.newest == start + 3 && none.changes.isEmpty)
        let page = try await store.newestAndChanges(after: start, limit: 2)
        #expect(page.newest == start + 3 && page.changes.map(\.revision) == [start + 1, start + 2])
        let rest = try await store.newestAndChanges(after: start + 2, limit: 2)
        #expect(rest.changes.map(\.revision) == [start + 3])
        #expect(try await store.newestAndChanges(after: start + 3, limit: 2).changes.isEmpty)
    }
}
