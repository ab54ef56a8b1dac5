import CarePlan
import CarePlanStore
import Foundation
import Testing

struct ActivityStoreTests {
    let scratch = Scratch()
    let store: CarePlanStore

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
    }

    @Test func addFindAndListActivities() async throws {
        try await store.core.plan.addActivity(intervention("apple", group: "diet", tags: ["food"]), effectiveFrom: monday, device: "t")
        try await store.core.plan.addActivity(painScale(), effectiveFrom: monday, device: "t")
        #expect(try await store.plan.activity("apple")?.activity.title == "Apple")
        #expect(try await store.plan.activity("nope") == nil)
        #expect(try await store.plan.activities().map(\.activity.identifier) == ["apple", "pain"])
        #expect(try await store.plan.activities(ActivityQuery(kind: .assessment)).map(\.activity.identifier) == ["pain"])
        #expect(try await store.plan.activities(ActivityQuery(group: "diet")).map(\.activity.identifier) == ["apple"])
        #expect(try await store.plan.activities(ActivityQuery(tag: "food")).map(\.activity.identifier) == ["apple"])
        await #expect(throws: CarePlanStoreError.activityExists("apple")) {
            try await store.core.plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        }
    }

    /// Filters apply before paging, so pages are full (CareKit's pages could come back short).
    @Test func pagesAreFullAfterFiltering() async throws {
        for n in 0..<25 {
            let id = String(format: "a%02d", n)
            try await store.core.plan.addActivity(intervention(id, tags: n % 3 == 0 ? ["odd-one"] : []), effectiveFrom: monday, device: "t")
            if n % 2 == 0 { try await store.core.plan.endActivity(id, from: monday.adding(days: 3), device: "t") }
        }
        let active = try await store.plan.activities().map(\.activity.identifier)
        #expect(active.count == 12)
        var pages: [[String]] = []
        for page in 0..<3 { pages.append(try await store.plan.activities(ActivityQuery(limit: 5, offset: page * 5)).map(\.activity.identifier)) }
        #expect(pages.map(\.count) == [5, 5, 2])
        #expect(pages.flatMap { $0 } == active)
        #expect(try await store.plan.activities(ActivityQuery(includeEnded: true, limit: 10, offset: 20)).count == 5)
        let tagged = try await store.plan.activities(ActivityQuery(tag: "odd-one", includeEnded: true, limit: 4))
        #expect(tagged.map(\.activity.identifier) == ["a00", "a03", "a06", "a09"])
    }

    /// Editing creates a version effective from a day; earlier days keep the old schedule.
    @Test func editingVersionsFromAnEffectiveDay() async throws {
        try await store.core.plan.addActivity(intervention("apple", times: ["08:00", "13:00", "19:00"]), effectiveFrom: monday, device: "t")
        try await store.record(done(), for: EventKey(activityID: "apple", day: monday.adding(days: 1), occurrence: 2))
        let edit = monday.adding(days: 3)
        let change = try await store.core.plan.updateActivity(intervention("apple", times: ["09:00"]), effectiveFrom: edit, device: "t")
        #expect(change.kind == .activityUpdated)
        #expect(change.version == 2)
        let versions = try await store.plan.versions(of: "apple")
        #expect(versions.map(\.version) == [1, 2])
        #expect(versions[0].effectiveUntil == edit)
        let events = try await store.outcomes.events(of: "apple", from: monday, through: monday.adding(days: 4))
        #expect(events.map(\.key.day.day) == [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6])
        #expect(events.last?.time == TimeOfDay("09:00"))
        #expect(events.first { $0.key.day == monday.adding(days: 1) && $0.key.occurrence == 2 }?.state == .completed)
        // The old version's occurrence 2 can still be recorded on its days, not after the edit.
        try await store.record(done(), for: EventKey(activityID: "apple", day: monday.adding(days: 2), occurrence: 2))
        await #expect(throws: OutcomeRefused(CarePlanStoreError.noSuchOccurrence(EventKey(activityID: "apple", day: edit, occurrence: 2), occurrences: 1))) {
            try await store.record(done(), for: EventKey(activityID: "apple", day: edit, occurrence: 2))
        }
    }

    @Test func endingAnActivityKeepsWhatWasRecorded() async throws {
        try await store.core.plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        try await store.record(done(), for: EventKey(activityID: "apple", day: monday, occurrence: 0))
        let end = monday.adding(days: 2)
        try await store.core.plan.endActivity("apple", from: end, device: "t")
        #expect(try await store.plan.activities().isEmpty)
        #expect(try await store.outcomes.events(on: end).isEmpty)
        #expect(try await store.outcomes.events(on: monday).first?.state == .completed)
        await #expect(throws: OutcomeRefused(CarePlanStoreError.outsideSchedule(EventKey(activityID: "apple", day: end, occurrence: 0)))) {
            try await store.record(done(), for: EventKey(activityID: "apple", day: end, occurrence: 0))
        }
        // Updating brings it back from the new version's day.
        try await store.core.plan.updateActivity(intervention("apple", times: ["10:00"]), effectiveFrom: monday.adding(days: 5), device: "t")
        #expect(try await store.outcomes.events(on: monday.adding(days: 4)).isEmpty)
        #expect(try await store.outcomes.events(on: monday.adding(days: 5)).count == 1)
    }

    @Test func kindCannotChange() async throws {
        try await store.core.plan.addActivity(intervention("check"), effectiveFrom: monday, device: "t")
        let assessment = try Activity(identifier: "check", kind: .assessment, title: "Check", schedule: .daily(occurrences: 1, start: monday))
        await #expect(throws: CarePlanStoreError.kindChanged("check", from: .intervention, to: .assessment)) {
            try await store.core.plan.updateActivity(assessment, effectiveFrom: monday.adding(days: 1), device: "t")
        }
    }
}
