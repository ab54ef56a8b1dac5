import CareFHIR
import CarePlan
import CarePlanStore
import Foundation
import TestSupport

/// A store in Europe/Vienna with one FHIR medication ("amlo", 08:00 and 20:00, from
/// MedicationRequest/rx-1 for Patient/p1) and one plain activity ("walk").
struct ExportFixture {
    let scratch = Scratch()
    let directory: URL
    let store: CarePlanStore
    let vienna = TimeZone(identifier: "Europe/Vienna")!
    let monday = CalendarDay("2026-11-23")!
    static let order = """
        {"resourceType": "MedicationRequest", "id": "rx-1", "status": "active", "intent": "order",
         "subject": {"reference": "Patient/p1"},
         "medicationCodeableConcept": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm",
           "code": "197361", "display": "Amlodipine 5 MG Oral Tablet"}], "text": "Amlodipine 5 mg"},
         "dosageInstruction": [{"text": "1 tablet twice a day", "timing": {"repeat": {"frequency": 2, "period": 1,
           "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}]}
        """

    init(order: String = Self.order, subject: String? = "Patient/p1") async throws {
        directory = scratch.url.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        try await store.core.plan.configure(title: "Test", timeZone: vienna, device: "setup")
        for id in ["amlo", "walk"] {
            // amlo is the order's, tagged as an import tags it: a medication's dose may carry what was taken.
            try await store.core.plan.addActivity(
                Activity(identifier: id, kind: .intervention, title: id, tags: id == "amlo" ? ["medication"] : [],
                         schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("20:00")!], start: monday)),
                effectiveFrom: monday, device: "setup")
        }
        try await store.core.sources.setSource(
            ActivitySource(system: "fhir", reference: "MedicationRequest/rx-1", subject: subject, payload: Data(order.utf8)),
            for: "amlo")
    }

    /// `HH:MM` on `day` in Vienna.
    func at(_ time: String, on day: CalendarDay? = nil) -> Date {
        (day ?? monday).date(at: TimeOfDay(time)!, in: vienna)
    }

    @discardableResult
    func record(
        _ activity: String = "amlo", occurrence: Int, day: CalendarDay? = nil, _ state: EventState = .completed,
        at time: Date, device: String = "watch", reason: String? = nil, values: [OutcomeValue] = []
    ) async throws -> Int {
        let key = EventKey(activityID: activity, day: day ?? monday, occurrence: occurrence)
        let outcome = Outcome(state: state, values: values, recordedAt: time, device: device, reason: reason)
        return try await store.record(outcome, for: key)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
