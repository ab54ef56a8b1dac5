import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// Each of ``OutcomeRules``' rules, on a store in a scratch file: a case it refuses or
/// decides, and the record unchanged where it refuses.
struct OutcomeRulesTests {
    let scratch = Scratch()
    let clock = ManualClock()
    let store: CarePlanStore
    let key = EventKey(activityID: "apple", day: monday, occurrence: 0)

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
        let plan = CareCore(store: store).plan
        try await plan.addActivity(intervention("apple", times: ["08:00", "13:00", "19:00"]), effectiveFrom: monday, device: "t")
        try await plan.addActivity(painScale(resettable: true), effectiveFrom: monday, device: "t")
        let weekly = try Activity(
            identifier: "weight", kind: .assessment, title: "Weight", result: .number(unit: "kg"),
            schedule: .weekly([0, 1, 0, 0, 1, 0, 0], start: monday))
        try await plan.addActivity(weekly, effectiveFrom: monday, device: "t")
    }

    func outcome(_ node: String, at physical: Int64, _ state: EventState = .completed) -> Outcome {
        Outcome(state: state, recordedAt: Date(timeIntervalSince1970: Double(physical) / 1000), device: node,
                clock: HybridTimestamp(physical: physical, node: node))
    }

    @Test("Rule 1, once per message: a repeated message id gets the same answer and changes nothing")
    func oncePerMessage() async throws {
        let first = try await store.complete(outcome("watch", at: 1000), for: key, messageID: "m-1")
        #expect(first.status == .accepted)
        #expect(!first.isRepeat)
        let revision = try await store.revision()
        let again = try await store.complete(outcome("watch", at: 5000, .notCompleted), for: key, messageID: "m-1")
        #expect(again.isRepeat)
        #expect(again.revision == first.revision)
        #expect(again.currentState == .completed)
        #expect(try await store.revision() == revision)
        #expect(try await store.outcomes.event(key).state == .completed)
    }

    @Test("Rule 1, once per message: a rejection is kept under its id too")
    func oncePerMessageRemembersRejections() async throws {
        let cases: [(EventKey, Rejection)] = [
            (EventKey(activityID: "pear", day: monday, occurrence: 0), .unknownActivity),
            (EventKey(activityID: "apple", day: monday, occurrence: 5), .noSuchOccurrence),
            (EventKey(activityID: "apple", day: monday.adding(days: -3), occurrence: 0), .outsidePlanVersion),
        ]
        let revision = try await store.revision()
        for (index, (key, rejection)) in cases.enumerated() {
            let receipt = try await store.complete(outcome("watch", at: 1000), for: key, messageID: "bad-\(index)")
            #expect(receipt.status == .rejected)
            #expect(receipt.rejection == rejection)
            #expect(receipt.detail?.isEmpty == false)
            let again = try await store.complete(outcome("watch", at: 1000), for: key, messageID: "bad-\(index)")
            #expect(again.isRepeat && again.rejection == rejection)
        }
        #expect(try await store.revision() == revision)
    }

    @Test("Rule 2, the version in force: an event the governing version lacks is refused and nothing is written")
    func theVersionInForce() async throws {
        let before = try await store.revision()
        let refusals: [(EventKey, Outcome, CarePlanStoreError)] = [
            (EventKey(activityID: "nope", day: monday, occurrence: 0), done(), .unknownActivity("nope")),
            (EventKey(activityID: "apple", day: monday, occurrence: 3), done(),
             .noSuchOccurrence(EventKey(activityID: "apple", day: monday, occurrence: 3), occurrences: 3)),
            (EventKey(activityID: "apple", day: monday.adding(days: -1), occurrence: 0), done(),
             .outsideSchedule(EventKey(activityID: "apple", day: monday.adding(days: -1), occurrence: 0))),
            (EventKey(activityID: "weight", day: monday.adding(days: 1), occurrence: 0), done(values: [OutcomeValue(.decimal(70))]),
             .outsideSchedule(EventKey(activityID: "weight", day: monday.adding(days: 1), occurrence: 0))),
        ]
        for (key, outcome, expected) in refusals {
            await #expect(throws: OutcomeRefused(expected)) { try await store.record(outcome, for: key) }
        }
        #expect(try await store.revision() == before)
        #expect(try await store.outcomes.events(on: monday).allSatisfy { $0.state == .initial })
        // The outcome is kept with the version that governs its day.
        try await store.record(done(), for: key)
        #expect(try await store.outcomes.event(key).version == 1)
    }

    /// A day after today in the plan's time zone is rejected (and the rejection kept under
    /// its id); today in that zone is not, though it is tomorrow in UTC; only an explicit
    /// `.allowed` back-fills a day to come.
    @Test("Rule 3, no day after today in the plan's time zone, unless the recorder may back-fill")
    func noDayAfterToday() async throws {
        // 2026-11-18 11:06 UTC is already 2026-11-19 in Auckland (UTC+13).
        try await CareCore(store: store).plan.configure(title: "Zones", timeZone: TimeZone(identifier: "Pacific/Auckland")!, device: "t")
        let today = CalendarDay.containing(clock.now, in: TimeZone(identifier: "Pacific/Auckland")!)
        #expect(today == CalendarDay("2026-11-19"))
        let revision = try await store.revision()
        let ahead = EventKey(activityID: "apple", day: today.adding(days: 1), occurrence: 0)
        let refused = try await store.complete(outcome("watch", at: 1000), for: ahead, messageID: "f")
        #expect(refused.status == .rejected && refused.rejection == .futureDay && refused.currentState == .initial)
        #expect(refused.detail == "2026-11-20 is after today (2026-11-19 in Pacific/Auckland): nothing recorded")
        #expect(try await store.complete(outcome("watch", at: 1000), for: ahead, messageID: "f").isRepeat)
        await #expect(throws: OutcomeRefused(CarePlanStoreError.futureDay(ahead, today: today, timeZone: "Pacific/Auckland"))) {
            try await store.record(done(), for: ahead)
        }
        #expect(try await store.revision() == revision)

        let now = EventKey(activityID: "apple", day: today, occurrence: 0)
        #expect(try await store.complete(outcome("watch", at: 1000), for: now, messageID: "t").status == .accepted)
        let backfilled = try await store.complete(outcome("cli", at: 2000), for: ahead, messageID: "b", futureDays: .allowed)
        #expect(backfilled.status == .accepted)
        #expect(try await store.outcomes.event(ahead).state == .completed)
    }

    @Test("Rule 4, resets: only an assessment whose result may be reset goes back to initial")
    func resets() async throws {
        let pain = EventKey(activityID: "pain", day: monday, occurrence: 0)
        try await store.record(done(values: [OutcomeValue(.integer(3))]), for: pain)
        try await store.record(Outcome(state: .initial, recordedAt: Date(), device: "t"), for: pain)
        #expect(try await store.outcomes.event(pain).state == .initial)
        let weight = EventKey(activityID: "weight", day: monday, occurrence: 0)
        let before = try await store.revision()
        await #expect(throws: OutcomeRefused(CarePlanStoreError.notResettable("weight"))) {
            try await store.record(Outcome(state: .initial, recordedAt: Date(), device: "t"), for: weight)
        }
        #expect(try await store.revision() == before)
    }

    @Test("Rule 5, the values: a completed outcome's values fit the activity's result")
    func theValues() async throws {
        let pain = EventKey(activityID: "pain", day: monday, occurrence: 0)
        let before = try await store.revision()
        await #expect(throws: OutcomeRefused(CarePlanStoreError.invalidResult(pain, .outOfScale(11, min: 0, max: 10)))) {
            try await store.record(done(values: [OutcomeValue(.integer(11))]), for: pain)
        }
        #expect(try await store.revision() == before)
        try await store.record(done(values: [OutcomeValue(.integer(10))]), for: pain)
        #expect(try await store.outcomes.event(pain).outcome?.values == [OutcomeValue(.integer(10))])
    }

    @Test("Rule 6, the conflict clock: the later clock wins whatever the arrival order, the loser kept in the history")
    func theConflictClock() async throws {
        // The widget acted later (clock 2000) but its message arrives first.
        let widget = try await store.complete(outcome("widget", at: 2000, .notCompleted), for: key, messageID: "w")
        let watch = try await store.complete(outcome("watch", at: 1000), for: key, messageID: "a")
        #expect(!widget.superseded)
        #expect(watch.status == .accepted)
        #expect(watch.superseded)
        #expect(watch.currentState == .notCompleted)
        #expect(try await store.outcomes.event(key).outcome?.device == "widget")
        let kinds = try await store.history(activityID: "apple").map(\.kind)
        #expect(kinds.suffix(2) == [.outcomeRecorded, .outcomeSuperseded])
        // Equal physical times: the counter, then the node id, decide.
        let tie = try await store.complete(outcome("zz-phone", at: 2000), for: key, messageID: "z")
        #expect(!tie.superseded)
        #expect(try await store.outcomes.event(key).state == .completed)
    }

    /// Two devices recording the same dose with different message ids is an ordinary
    /// conflict, never an error, and later completions still go through (CareKit issue 700).
    @Test("Rule 6, the conflict clock: the same dose from two devices is not an error")
    func theSameDoseFromTwoDevices() async throws {
        let a = try await store.complete(outcome("watch", at: 1000), for: key, messageID: "a")
        let b = try await store.complete(outcome("widget", at: 1001), for: key, messageID: "b")
        #expect(a.status == .accepted && b.status == .accepted)
        let next = EventKey(activityID: "apple", day: monday, occurrence: 1)
        #expect(try await store.complete(outcome("watch", at: 1002), for: next, messageID: "c").status == .accepted)
    }

    @Test("Rule 6, the conflict clock: a change made here, without a clock, stands over what the store has seen")
    func localChangesStand() async throws {
        // A watch whose clock runs an hour ahead.
        let ahead = Int64(clock.now.timeIntervalSince1970 * 1000) + 3_600_000
        _ = try await store.complete(outcome("watch", at: ahead), for: key, messageID: "fast")
        try await store.record(Outcome(state: .notCompleted, recordedAt: clock.now, device: "cli"), for: key)
        let event = try await store.outcomes.event(key)
        #expect(event.state == .notCompleted)
        #expect(try #require(event.outcome?.clock) > HybridTimestamp(physical: ahead, node: "watch"))
    }

    /// Completions sent at once by many companions are committed in groups, and each is
    /// judged as it would be alone: a message id answered once, rejections remembered, and
    /// every accepted one at a revision of its own.
    @Test func completionsArrivingTogetherAreJudgedAsAlone() async throws {
        let revision = try await store.revision()
        let later = EventKey(activityID: "apple", day: monday.adding(days: 30), occurrence: 0)
        let receipts = try await withThrowingTaskGroup(of: (String, CompletionReceipt).self) { [store] group in
            for n in 0..<40 {
                let key = EventKey(activityID: "apple", day: monday.adding(days: n / 3), occurrence: n % 3)
                let outcome = outcome("watch", at: 1000 + Int64(n))
                group.addTask { ("ok", try await store.complete(outcome, for: key, messageID: "ok-\(n)")) }
            }
            for n in 0..<5 {
                let unknown = EventKey(activityID: "pear", day: monday, occurrence: n)
                let outcome = outcome("watch", at: 2000)
                group.addTask { ("bad", try await store.complete(outcome, for: unknown, messageID: "bad-\(n)")) }
                // The same message five times at once (a companion sending it again).
                let again = outcome
                group.addTask { ("dup", try await store.complete(again, for: later, messageID: "dup")) }
            }
            return try await group.reduce(into: [String: [CompletionReceipt]]()) { $0[$1.0, default: []].append($1.1) }
        }
        let accepted = try #require(receipts["ok"])
        #expect(accepted.allSatisfy { $0.status == .accepted && !$0.isRepeat })
        #expect(Set(accepted.compactMap(\.revision)).count == 40)
        #expect(try #require(receipts["bad"]).allSatisfy { $0.rejection == .unknownActivity })
        let dup = try #require(receipts["dup"])
        #expect(dup.filter { !$0.isRepeat }.count == 1)
        #expect(Set(dup.map(\.revision)).count == 1)
        #expect(try await store.revision() == revision + 41)
        #expect(try await store.outcomes.event(later).state == .completed)
    }
}
