import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// Each of ``SourceRules``' rules, on a store in a scratch file.
struct SourceRulesTests {
    let scratch = Scratch()
    let clock = ManualClock()
    let store: CarePlanStore
    let sources: SourcedActivities

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
        sources = CareCore(store: store).sources
    }

    func order(_ id: String, _ activity: Activity?, firstDay: CalendarDay = monday) -> SourcedActivity {
        SourcedActivity(
            activityID: id, activity: activity, firstDay: firstDay,
            source: ActivitySource(system: "fhir", reference: "MedicationRequest/\(id)", payload: Data("{}".utf8)))
    }

    func hold(_ reference: String, _ review: String) -> HeldSource {
        HeldSource(system: "fhir", reference: reference, payload: Data("{}".utf8), review: Data(review.utf8))
    }

    func review(_ reviewed: [String], holding held: [HeldSource]) -> SourceReview {
        SourceReview(system: "fhir", reviewed: reviewed, held: held)
    }

    @Test("Source rule 1, a source is an activity's: a source for an unknown activity is refused")
    func aSourceIsAnActivitys() async throws {
        await #expect(throws: CarePlanStoreError.unknownActivity("ghost")) {
            try await sources.setSource(ActivitySource(system: "fhir", reference: "MedicationRequest/9", payload: Data()), for: "ghost")
        }
        #expect(try await store.sources.all(system: "fhir").isEmpty)
    }

    @Test("Source rule 2, a review replaces the holds of what it read: the rest are held no longer")
    func aReviewReplacesTheHoldsOfWhatItRead() async throws {
        try await sources.apply([], review: review(["a", "b", "c"], holding: [hold("a", "x"), hold("b", "x"), hold("c", "x")]),
                                effectiveFrom: monday, device: "t")
        try await sources.apply([], review: review(["a", "b"], holding: [hold("b", "y")]), effectiveFrom: monday, device: "t")
        let held = try await store.sources.held(system: "fhir")
        #expect(held.map(\.reference) == ["b", "c"])
        #expect(held.map { String(decoding: $0.review, as: UTF8.self) } == ["y", "x"])
        #expect(try await store.revision() == 0)
    }

    @Test("Source rule 3, a hold keeps its time: held again for the same, it keeps the first time")
    func aHoldKeepsItsTime() async throws {
        let first = clock.now
        try await sources.apply([], review: review(["a", "b"], holding: [hold("a", "x"), hold("b", "x")]), effectiveFrom: monday, device: "t")
        clock.advance(by: 3600)
        try await sources.apply([], review: review(["a", "b"], holding: [hold("a", "x"), hold("b", "y")]), effectiveFrom: monday, device: "t")
        #expect(try await store.sources.held(system: "fhir").map(\.heldAt) == [first, clock.now])
    }

    @Test("Source rule 4, sourced activities load as a plan's do, with their sources, not the plan document's")
    func sourcedActivitiesLoadAsAPlansDo() async throws {
        let later = monday.adding(days: 3)
        let first = try await sources.apply([order("rx", try intervention("rx"))], effectiveFrom: later, device: "t")
        #expect(first.added == ["rx"])
        #expect(try await store.plan.versions(of: "rx").map(\.effectiveFrom) == [monday])
        #expect(try await store.sources.source(of: "rx")?.reference == "MedicationRequest/rx")
        #expect(try await sources.apply([order("rx", try intervention("rx"))], effectiveFrom: later, device: "t").unchanged == ["rx"])
        let changed = try await sources.apply([order("rx", try intervention("rx", times: ["09:00"]))], effectiveFrom: later, device: "t")
        #expect(changed.updated == ["rx"])
        #expect(try await store.plan.versions(of: "rx").map(\.effectiveFrom) == [monday, later])
        let plan = try Plan(title: "Test", timeZone: .gmt, activities: [try intervention("apple")])
        #expect(try await CareCore(store: store).plan.load(plan, effectiveFrom: later, device: "t").ended.isEmpty)
    }

    @Test("Source rule 5, an item without an activity ends it: once, and not if it was never kept")
    func anItemWithoutAnActivityEndsIt() async throws {
        try await sources.apply([order("rx", try intervention("rx"))], effectiveFrom: monday, device: "t")
        let later = monday.adding(days: 2)
        #expect(try await sources.apply([order("rx", nil)], effectiveFrom: later, device: "t").ended == ["rx"])
        let revision = try await store.revision()
        let again = try await sources.apply([order("rx", nil), order("ghost", nil)], effectiveFrom: later, device: "t")
        #expect(again.unchanged == ["rx"])
        #expect(again.ended.isEmpty)
        #expect(again.revision == revision)
        #expect(try await store.sources.all(system: "fhir").map(\.activityID) == ["rx"])
        #expect(try await store.plan.activity("rx")?.effectiveUntil == later)
    }
}
