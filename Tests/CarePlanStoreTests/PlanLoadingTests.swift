import CarePlan
import CarePlanDocument
import CarePlanStore
import Foundation
import Testing

struct PlanLoadingTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/zombiecare-plan.json").path
    let loadDay = CalendarDay("2026-11-10")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
    }

    func plan() throws -> Plan {
        try PlanDocument.load(path: example, defaultStart: loadDay)
    }

    @Test func loadingTwiceChangesNothing() async throws {
        let first = try await store.core.plan.load(plan(), effectiveFrom: loadDay, device: "t")
        #expect(first.added.count == 9)
        #expect(first.contactsSaved == ["dr-ruiz", "rick"])
        let info = try await store.plan.info()
        #expect(info.title == "ZombieCare")
        #expect(info.timeZone?.identifier == "Europe/Vienna")
        #expect(info.start == CalendarDay("2026-11-01"))
        #expect(!info.planID.isEmpty)
        let second = try await store.core.plan.load(plan(), effectiveFrom: loadDay.adding(days: 5), device: "t")
        #expect(!second.changedAnything)
        #expect(second.unchanged.count == 9)
        #expect(second.revision == first.revision)
        #expect(try await store.plan.contacts().map(\.identifier) == ["dr-ruiz", "rick"])
    }

    @Test func anEditedPlanVersionsOnlyWhatChanged() async throws {
        try await store.core.plan.load(plan(), effectiveFrom: loadDay, device: "t")
        var edited = try plan()
        let appleIndex = try #require(edited.activities.firstIndex { $0.identifier == "golden-apple" })
        edited.activities[appleIndex].schedule.times = [TimeOfDay("09:00")!, TimeOfDay("14:00")!, TimeOfDay("20:00")!]
        edited.activities.removeAll { $0.identifier == "garlic-tonic" }
        edited.activities.append(try intervention("walk", times: ["17:00"]))
        edited.contacts.removeAll { $0.identifier == "rick" }
        let editDay = loadDay.adding(days: 3)
        let report = try await store.core.plan.load(edited, effectiveFrom: editDay, device: "t")
        #expect(report.updated == ["golden-apple"])
        #expect(report.ended == ["garlic-tonic"])
        #expect(report.added == ["walk"])
        #expect(report.unchanged.count == 7)
        #expect(report.contactsRemoved == ["rick"])
        #expect(try await store.plan.versions(of: "golden-apple").map(\.effectiveFrom) == [loadDay, editDay])
        #expect(try await store.outcomes.events(of: "golden-apple", on: editDay.adding(days: -1)).first?.time == TimeOfDay("08:00"))
        #expect(try await store.outcomes.events(of: "golden-apple", on: editDay).first?.time == TimeOfDay("09:00"))
        #expect(try await store.outcomes.events(of: "garlic-tonic", from: editDay, through: editDay.adding(days: 5)).isEmpty)
        #expect(try await store.plan.activities().map(\.activity.identifier).last == "walk")
    }

    @Test func aPlanTheStoreRefusesWritesNothing() async throws {
        try await store.core.plan.load(plan(), effectiveFrom: loadDay, device: "t")
        let before = try await store.revision()
        var edited = try plan()
        edited.title = "Renamed"
        edited.activities.append(try intervention("new-one"))
        // "pain" turns into an intervention: refused, and with it the whole load.
        let index = try #require(edited.activities.firstIndex { $0.identifier == "pain" })
        edited.activities[index] = try intervention("pain")
        await #expect(throws: CarePlanStoreError.kindChanged("pain", from: .assessment, to: .intervention)) {
            try await store.core.plan.load(edited, effectiveFrom: loadDay.adding(days: 1), device: "t")
        }
        #expect(try await store.revision() == before)
        #expect(try await store.plan.info().title == "ZombieCare")
        #expect(try await store.plan.activity("new-one") == nil)
    }
}

/// Contacts added one by one (the command line, a vCard import) are not the plan document's:
/// loading a document that lacks them keeps them, while the document's own go when it drops them.
struct ContactOriginTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let loadDay = CalendarDay("2026-11-10")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
    }

    func plan(contacts: [Contact]) throws -> Plan {
        try Plan(title: "T", timeZone: TimeZone(identifier: "Europe/Vienna")!, activities: [], contacts: contacts)
    }

    @Test func aPlanRemovesOnlyItsOwnContacts() async throws {
        let doctor = try Contact(identifier: "doctor", kind: .careTeam, givenName: "Maria")
        let neighbour = try Contact(identifier: "neighbour", kind: .personal, givenName: "Anna")
        try await store.core.plan.load(plan(contacts: [doctor]), effectiveFrom: loadDay, device: "t")
        #expect(try await store.core.plan.saveContacts([neighbour], device: "cli") == [true])
        #expect(try await store.core.plan.saveContacts([neighbour], device: "cli") == [false])
        // The document without its doctor: the doctor goes, the neighbour stays.
        let report = try await store.core.plan.load(plan(contacts: []), effectiveFrom: loadDay, device: "t")
        #expect(report.contactsRemoved == ["doctor"])
        #expect(try await store.plan.contacts().map(\.identifier) == ["neighbour"])
        #expect(try await store.plan.contact("doctor") == nil)
        // A document that lists the neighbour makes it the plan's, to remove with the document.
        try await store.core.plan.load(plan(contacts: [neighbour]), effectiveFrom: loadDay, device: "t")
        #expect(try await store.core.plan.load(plan(contacts: []), effectiveFrom: loadDay, device: "t").contactsRemoved == ["neighbour"])
    }

    @Test func editingAPlansContactLeavesItThePlans() async throws {
        let doctor = try Contact(identifier: "doctor", kind: .careTeam, givenName: "Maria")
        try await store.core.plan.load(plan(contacts: [doctor]), effectiveFrom: loadDay, device: "t")
        var edited = doctor
        edited.email = "maria@example.org"
        try await store.core.plan.saveContact(edited, device: "cli")
        #expect(try await store.plan.contact("doctor")?.email == "maria@example.org")
        #expect(try await store.core.plan.load(plan(contacts: []), effectiveFrom: loadDay, device: "t").contactsRemoved == ["doctor"])
    }
}
