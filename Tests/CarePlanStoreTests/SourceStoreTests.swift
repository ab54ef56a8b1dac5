import CarePlan
import CarePlanStore
import Foundation
import Testing

/// The store's activity sources: the generic capability FHIR import and export build on.
struct SourceStoreTests {
    let scratch = Scratch()
    let clock = ManualClock()
    let store: CarePlanStore
    let day = CalendarDay("2026-11-02")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
    }

    func pill(_ id: String, times: [String] = ["08:00"]) throws -> Activity {
        try Activity(
            identifier: id, kind: .intervention, title: id.capitalized,
            schedule: .daily(times: times.map { TimeOfDay($0)! }, start: day))
    }

    func source(_ reference: String, _ payload: String = "{}") -> ActivitySource {
        ActivitySource(system: "fhir", reference: reference, subject: "Patient/p1", payload: Data(payload.utf8))
    }

    @Test func setReadAndReplaceASource() async throws {
        try await store.core.plan.addActivity(pill("rx-1"), effectiveFrom: day, device: "t")
        #expect(try await store.sources.source(of: "rx-1") == nil)
        let stored = try await store.core.sources.setSource(source("MedicationRequest/1", #"{"id":"1"}"#), for: "rx-1")
        #expect(stored.activityID == "rx-1")
        #expect(stored.updatedAt == clock.now)
        let read = try #require(try await store.sources.source(of: "rx-1"))
        #expect(read == stored)
        #expect(read.subject == "Patient/p1")
        #expect(String(decoding: read.payload, as: UTF8.self) == #"{"id":"1"}"#)
        clock.advance(by: 60)
        try await store.core.sources.setSource(source("MedicationRequest/1", #"{"id":"1","status":"stopped"}"#), for: "rx-1")
        #expect(try await store.sources.source(of: "rx-1")?.payload == Data(#"{"id":"1","status":"stopped"}"#.utf8))
        #expect(try await store.sources.source(of: "rx-1")?.updatedAt == clock.now)
        #expect(try await store.sources.all(system: "fhir").count == 1)
    }

    @Test func sourcesBySystem() async throws {
        for id in ["b", "a", "c"] { try await store.core.plan.addActivity(pill(id), effectiveFrom: day, device: "t") }
        try await store.core.sources.setSource(source("MedicationRequest/b"), for: "b")
        try await store.core.sources.setSource(source("MedicationRequest/a"), for: "a")
        try await store.core.sources.setSource(ActivitySource(system: "other", reference: "x/1", payload: Data()), for: "c")
        #expect(try await store.sources.all(system: "fhir").map(\.activityID) == ["a", "b"])
        #expect(try await store.sources.all(system: "other").map(\.reference) == ["x/1"])
        #expect(try await store.sources.all(system: "none").isEmpty)
    }

    @Test func aSourceNeedsItsActivity() async throws {
        await #expect(throws: CarePlanStoreError.unknownActivity("ghost")) {
            try await store.core.sources.setSource(source("MedicationRequest/9"), for: "ghost")
        }
    }

    @Test func applyingAddsUpdatesEndsAndNeverDuplicates() async throws {
        let first = [
            SourcedActivity(activityID: "a", activity: try pill("a"), firstDay: day, source: source("MedicationRequest/a")),
            SourcedActivity(activityID: "b", activity: try pill("b"), firstDay: day, source: source("MedicationRequest/b")),
            SourcedActivity(activityID: "gone", activity: nil, firstDay: day, source: source("MedicationRequest/gone")),
        ]
        let report = try await store.core.sources.apply(first, effectiveFrom: day.adding(days: 3), device: "t")
        #expect(report.added == ["a", "b"])
        #expect(report.ended.isEmpty)
        #expect(try await store.plan.versions(of: "a").first?.effectiveFrom == day)
        #expect(try await store.sources.source(of: "gone") == nil)
        let again = try await store.core.sources.apply(first, effectiveFrom: day.adding(days: 3), device: "t")
        #expect(again.unchanged == ["a", "b"])
        #expect(again.revision == report.revision)
        let later = day.adding(days: 5)
        let second = [
            SourcedActivity(activityID: "a", activity: try pill("a", times: ["09:00"]), firstDay: day, source: source("MedicationRequest/a")),
            SourcedActivity(activityID: "b", activity: nil, firstDay: day, source: source("MedicationRequest/b", #"{"status":"stopped"}"#)),
        ]
        let changed = try await store.core.sources.apply(second, effectiveFrom: later, device: "t")
        #expect(changed.updated == ["a"])
        #expect(changed.ended == ["b"])
        #expect(try await store.plan.versions(of: "a").map(\.effectiveFrom) == [day, later])
        #expect(try await store.plan.activities().map(\.activity.identifier) == ["a"])
        #expect(try await store.sources.source(of: "b")?.payload == Data(#"{"status":"stopped"}"#.utf8))
        #expect(try await store.core.sources.apply(second, effectiveFrom: later, device: "t").unchanged == ["a", "b"])
    }

    @Test func oneBadActivityWritesNothing() async throws {
        var bad = try pill("bad")
        bad.title = " "
        let items = [
            SourcedActivity(activityID: "ok", activity: try pill("ok"), firstDay: day, source: source("MedicationRequest/ok")),
            SourcedActivity(activityID: "bad", activity: bad, firstDay: day, source: source("MedicationRequest/bad")),
        ]
        await #expect(throws: CarePlanStoreError.self) { try await store.core.sources.apply(items, effectiveFrom: day, device: "t") }
        #expect(try await store.plan.activities().isEmpty)
        #expect(try await store.sources.all(system: "fhir").isEmpty)
        #expect(try await store.revision() == 0)
    }

    @Test func asNeededSlotsAreRecordableButNeitherDueNorCounted() async throws {
        let prn = try Activity(
            identifier: "prn", kind: .intervention, title: "Ibuprofen",
            schedule: .daily(occurrences: 3, start: day, asNeeded: true))
        try await store.core.plan.addActivity(prn, effectiveFrom: day, device: "t")
        try await store.core.plan.addActivity(pill("daily"), effectiveFrom: day, device: "t")
        try await store.record(
            Outcome(state: .completed, recordedAt: clock.now, device: "t"), for: EventKey(activityID: "prn", day: day, occurrence: 1))
        let events = try await store.outcomes.events(on: day)
        #expect(events.filter { $0.key.activityID == "prn" }.count == 3)
        let summary = CompletionSummary(day: day, events: events)
        #expect(summary.interventions == Tally(completed: 0, total: 1))
        #expect(try await store.plan.activity("prn")?.activity.schedule.asNeeded == true)
    }
}
