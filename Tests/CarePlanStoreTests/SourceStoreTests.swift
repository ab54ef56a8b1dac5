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

    init() throws {
        store = try CarePlanStore(path: scratch.path("store.sqlite"), now: { [clock] in clock.now })
    }

    func pill(_ id: String, times: [String] = ["08:00"]) throws -> Activity {
        try Activity(
            identifier: id, kind: .intervention, title: id.capitalized,
            schedule: .daily(times: times.map { TimeOfDay($0)! }, start: day))
    }

    func source(_ reference: String, _ payload: String = "{}") -> ActivitySource {
        ActivitySource(system: "fhir", reference: reference, subject: "Patient/p1", payload: Data(payload.utf8))
    }

    @Test func setReadAndReplaceASource() throws {
        try store.addActivity(pill("rx-1"), effectiveFrom: day, device: "t")
        #expect(try store.source(of: "rx-1") == nil)
        let stored = try store.setSource(source("MedicationRequest/1", #"{"id":"1"}"#), for: "rx-1")
        #expect(stored.activityID == "rx-1")
        #expect(stored.updatedAt == clock.now)
        let read = try #require(try store.source(of: "rx-1"))
        #expect(read == stored)
        #expect(read.subject == "Patient/p1")
        #expect(String(decoding: read.payload, as: UTF8.self) == #"{"id":"1"}"#)
        clock.advance(by: 60)
        try store.setSource(source("MedicationRequest/1", #"{"id":"1","status":"stopped"}"#), for: "rx-1")
        #expect(try store.source(of: "rx-1")?.payload == Data(#"{"id":"1","status":"stopped"}"#.utf8))
        #expect(try store.source(of: "rx-1")?.updatedAt == clock.now)
        #expect(try store.sources(system: "fhir").count == 1)
    }

    @Test func sourcesBySystem() throws {
        for id in ["b", "a", "c"] { try store.addActivity(pill(id), effectiveFrom: day, device: "t") }
        try store.setSource(source("MedicationRequest/b"), for: "b")
        try store.setSource(source("MedicationRequest/a"), for: "a")
        try store.setSource(ActivitySource(system: "other", reference: "x/1", payload: Data()), for: "c")
        #expect(try store.sources(system: "fhir").map(\.activityID) == ["a", "b"])
        #expect(try store.sources(system: "other").map(\.reference) == ["x/1"])
        #expect(try store.sources(system: "none").isEmpty)
    }

    @Test func aSourceNeedsItsActivity() throws {
        #expect(throws: CarePlanStoreError.unknownActivity("ghost")) {
            try store.setSource(source("MedicationRequest/9"), for: "ghost")
        }
    }

    @Test func applyingAddsUpdatesEndsAndNeverDuplicates() throws {
        let first = [
            SourcedActivity(activityID: "a", activity: try pill("a"), firstDay: day, source: source("MedicationRequest/a")),
            SourcedActivity(activityID: "b", activity: try pill("b"), firstDay: day, source: source("MedicationRequest/b")),
            SourcedActivity(activityID: "gone", activity: nil, firstDay: day, source: source("MedicationRequest/gone")),
        ]
        let report = try store.applySourced(first, effectiveFrom: day.adding(days: 3), device: "t")
        #expect(report.added == ["a", "b"])
        #expect(report.ended.isEmpty)
        #expect(try store.versions(of: "a").first?.effectiveFrom == day)
        #expect(try store.source(of: "gone") == nil)
        let again = try store.applySourced(first, effectiveFrom: day.adding(days: 3), device: "t")
        #expect(again.unchanged == ["a", "b"])
        #expect(again.revision == report.revision)
        let later = day.adding(days: 5)
        let second = [
            SourcedActivity(activityID: "a", activity: try pill("a", times: ["09:00"]), firstDay: day, source: source("MedicationRequest/a")),
            SourcedActivity(activityID: "b", activity: nil, firstDay: day, source: source("MedicationRequest/b", #"{"status":"stopped"}"#)),
        ]
        let changed = try store.applySourced(second, effectiveFrom: later, device: "t")
        #expect(changed.updated == ["a"])
        #expect(changed.ended == ["b"])
        #expect(try store.versions(of: "a").map(\.effectiveFrom) == [day, later])
        #expect(try store.activities().map(\.activity.identifier) == ["a"])
        #expect(try store.source(of: "b")?.payload == Data(#"{"status":"stopped"}"#.utf8))
        #expect(try store.applySourced(second, effectiveFrom: later, device: "t").unchanged == ["a", "b"])
    }

    @Test func oneBadActivityWritesNothing() throws {
        var bad = try pill("bad")
        bad.title = " "
        let items = [
            SourcedActivity(activityID: "ok", activity: try pill("ok"), firstDay: day, source: source("MedicationRequest/ok")),
            SourcedActivity(activityID: "bad", activity: bad, firstDay: day, source: source("MedicationRequest/bad")),
        ]
        #expect(throws: CarePlanStoreError.self) { try store.applySourced(items, effectiveFrom: day, device: "t") }
        #expect(try store.activities().isEmpty)
        #expect(try store.sources(system: "fhir").isEmpty)
        #expect(try store.revision() == 0)
    }

    @Test func asNeededSlotsAreRecordableButNeitherDueNorCounted() throws {
        let prn = try Activity(
            identifier: "prn", kind: .intervention, title: "Ibuprofen",
            schedule: .daily(occurrences: 3, start: day, asNeeded: true))
        try store.addActivity(prn, effectiveFrom: day, device: "t")
        try store.addActivity(pill("daily"), effectiveFrom: day, device: "t")
        try store.setOutcome(
            Outcome(state: .completed, recordedAt: clock.now, device: "t"), for: EventKey(activityID: "prn", day: day, occurrence: 1))
        let events = try store.events(on: day)
        #expect(events.filter { $0.key.activityID == "prn" }.count == 3)
        let summary = CompletionSummary(day: day, events: events)
        #expect(summary.interventions == Tally(completed: 0, total: 1))
        #expect(try store.activity("prn")?.activity.schedule.asNeeded == true)
    }
}
