import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// Each of ``PlanRules``' rules, on a store in a scratch file: what it decides, and the
/// record unchanged where it refuses.
struct PlanRulesTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let plan: CarePlanning
    let zone = TimeZone(identifier: "Europe/Vienna")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: ManualClock())
        plan = CareCore(store: store).plan
    }

    func document(_ activities: [Activity], contacts: [Contact] = [], start: CalendarDay? = nil, patient: Patient? = nil) throws -> Plan {
        try Plan(title: "Test", patient: patient, start: start, timeZone: zone, activities: activities, contacts: contacts)
    }

    func person(_ id: String, phone: String? = nil) throws -> Contact {
        try Contact(identifier: id, kind: .personal, givenName: id.capitalized, phone: phone)
    }

    /// The kinds of the changes logged after `revision`.
    func changes(after revision: Int) async throws -> [StoreChange.Kind] {
        try await store.history(after: revision).map(\.kind)
    }

    @Test("Plan rule 1, valid: an activity that does not validate is neither added nor versioned")
    func valid() async throws {
        var untitled = try intervention("apple")
        untitled.title = " "
        await #expect(throws: CarePlanStoreError.invalidActivity("apple", .emptyTitle)) {
            try await plan.addActivity(untitled, effectiveFrom: monday, device: "t")
        }
        try await plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        let revision = try await store.revision()
        await #expect(throws: CarePlanStoreError.invalidActivity("apple", .emptyTitle)) {
            try await plan.updateActivity(untitled, effectiveFrom: monday.adding(days: 1), device: "t")
        }
        #expect(try await store.revision() == revision)
        #expect(try await store.plan.versions(of: "apple").count == 1)
    }

    @Test("Plan rule 2, added once: adding an activity the record keeps is refused")
    func addedOnce() async throws {
        try await plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        await #expect(throws: CarePlanStoreError.activityExists("apple")) {
            try await plan.addActivity(intervention("apple", times: ["09:00"]), effectiveFrom: monday, device: "t")
        }
        #expect(try await changes(after: 0) == [.activityAdded])
    }

    @Test("Plan rule 3, changed only if kept: a version or an end of an unknown activity is refused")
    func changedOnlyIfKept() async throws {
        await #expect(throws: CarePlanStoreError.unknownActivity("pear")) {
            try await plan.updateActivity(intervention("pear"), effectiveFrom: monday, device: "t")
        }
        await #expect(throws: CarePlanStoreError.unknownActivity("pear")) {
            try await plan.endActivity("pear", from: monday, device: "t")
        }
        #expect(try await store.revision() == 0)
    }

    @Test("Plan rule 4, its kind stays: a version of another kind is refused")
    func itsKindStays() async throws {
        try await plan.addActivity(intervention("check"), effectiveFrom: monday, device: "t")
        var assessment = try painScale("check")
        assessment.title = "Check"
        await #expect(throws: CarePlanStoreError.kindChanged("check", from: .intervention, to: .assessment)) {
            try await plan.updateActivity(assessment, effectiveFrom: monday.adding(days: 1), device: "t")
        }
        #expect(try await store.plan.versions(of: "check").count == 1)
    }

    @Test("Plan rule 5, loaded by difference: new added, changed or ended versioned, the same left")
    func loadedByDifference() async throws {
        let first = try await plan.load(
            document([intervention("apple"), intervention("pear"), intervention("plum")]), effectiveFrom: monday, device: "t")
        #expect(first.added == ["apple", "pear", "plum"])
        try await plan.endActivity("plum", from: monday.adding(days: 2), device: "t")
        let revision = try await store.revision()
        let later = monday.adding(days: 4)
        let report = try await plan.load(
            document([intervention("apple", times: ["09:00"]), intervention("pear"), intervention("plum"), intervention("fig")]),
            effectiveFrom: later, device: "t")
        #expect(report.updated == ["apple", "plum"])
        #expect(report.unchanged == ["pear"])
        #expect(report.added == ["fig"])
        #expect(try await changes(after: revision) == [.activityUpdated, .activityUpdated, .activityAdded])
        #expect(try await store.plan.versions(of: "apple").map(\.effectiveFrom) == [monday, later])
        #expect(try await store.plan.versions(of: "fig").map(\.effectiveFrom) == [later])
        #expect(try await store.plan.versions(of: "pear").count == 1)
        #expect(try await store.plan.activities().map(\.activity.identifier) == ["apple", "pear", "plum", "fig"])
    }

    @Test("Plan rule 6, a plan ends what it dropped: only activities a plan document added")
    func aPlanEndsWhatItDropped() async throws {
        try await plan.load(document([intervention("apple"), intervention("pear")]), effectiveFrom: monday, device: "t")
        try await plan.addActivity(intervention("walk"), effectiveFrom: monday, device: "t")
        let later = monday.adding(days: 3)
        let report = try await plan.load(document([intervention("apple")]), effectiveFrom: later, device: "t")
        #expect(report.ended == ["pear"])
        #expect(try await store.plan.activities().map(\.activity.identifier) == ["apple", "walk"])
        #expect(try await store.outcomes.events(of: "pear", from: later, through: later.adding(days: 3)).isEmpty)
        #expect(try await store.history(activityID: "pear").last?.effectiveFrom == later)
    }

    @Test("Plan rule 7, settings change when they differ: those not given stay, the same logs nothing")
    func settingsChangeWhenTheyDiffer() async throws {
        let start = monday.adding(days: -7)
        try await plan.configure(title: "Test", timeZone: zone, start: start, missedDose: MissedDosePolicy(graceMinutes: 45), device: "t")
        let revision = try await store.revision()
        let info = try await plan.configure(title: "Test", timeZone: zone, device: "t")
        #expect(info.start == start)
        #expect(info.missedDose == MissedDosePolicy(graceMinutes: 45))
        #expect(try await store.revision() == revision)
        let patient = try Patient(name: "Rick")
        try await plan.load(document([], patient: patient), effectiveFrom: monday, device: "t")
        #expect(try await store.plan.info().start == start)
        #expect(try await store.plan.info().patient == patient)
        #expect(try await changes(after: revision) == [.planConfigured])
        try await plan.load(document([]), effectiveFrom: monday, device: "t")
        #expect(try await store.plan.info().patient == nil)
    }

    @Test("Plan rule 8, saved by difference: a contact saved as it is listed logs nothing")
    func savedByDifference() async throws {
        #expect(try await plan.saveContact(person("rick"), device: "t") != nil)
        #expect(try await plan.saveContact(person("rick"), device: "t") == nil)
        #expect(try await plan.saveContacts([person("rick"), person("rick", phone: "+43 1")], device: "t") == [false, true])
        #expect(try await changes(after: 0) == [.contactSaved, .contactSaved])
        #expect(try await store.plan.contact("rick")?.phone == "+43 1")
    }

    @Test("Plan rule 9, place and origin: a contact keeps its place, and a plan's stays the plan's")
    func placeAndOrigin() async throws {
        #expect(try await plan.saveContacts([person("rick"), person("morty")], device: "t") == [true, true])
        try await plan.saveContact(person("rick", phone: "+43 1"), device: "t")
        #expect(try await store.plan.contacts().map(\.identifier) == ["rick", "morty"])
        try await plan.load(document([], contacts: [person("morty"), person("summer")]), effectiveFrom: monday, device: "t")
        #expect(try await store.plan.contacts().map(\.identifier) == ["morty", "rick", "summer"])
        try await plan.saveContact(person("summer", phone: "+43 2"), device: "t")
        let report = try await plan.load(document([]), effectiveFrom: monday, device: "t")
        #expect(Set(report.contactsRemoved) == ["morty", "summer"])
        #expect(try await store.plan.contacts().map(\.identifier) == ["rick"])
    }

    @Test("Plan rule 10, a plan replaces its own contacts: those saved one by one stay")
    func aPlanReplacesItsOwnContacts() async throws {
        try await plan.load(document([], contacts: [person("doctor"), person("rick")]), effectiveFrom: monday, device: "t")
        try await plan.saveContact(person("neighbour"), device: "t")
        let revision = try await store.revision()
        let report = try await plan.load(document([], contacts: [person("doctor")]), effectiveFrom: monday, device: "t")
        #expect(report.contactsRemoved == ["rick"])
        #expect(report.contactsSaved.isEmpty)
        #expect(try await changes(after: revision) == [.contactRemoved])
        #expect(try await store.plan.contacts().map(\.identifier) == ["doctor", "neighbour"])
    }

    @Test("Plan rule 11, removed once: removing a contact that is not listed logs nothing")
    func removedOnce() async throws {
        #expect(try await plan.removeContact("rick", device: "t") == nil)
        try await plan.saveContact(person("rick"), device: "t")
        #expect(try await plan.removeContact("rick", device: "t")?.kind == .contactRemoved)
        #expect(try await plan.removeContact("rick", device: "t") == nil)
        #expect(try await changes(after: 0) == [.contactSaved, .contactRemoved])
        #expect(try await store.plan.contact("rick") == nil)
    }
}
