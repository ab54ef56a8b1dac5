import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import TestSupport

/// The patient's time zone in these tests.
let berlin = TimeZone(identifier: "Europe/Berlin")!
/// The import day: a Monday.
let importDay = CalendarDay("2016-08-15")!

/// A MedicationRequest with the given dosage instructions (JSON objects).
func request(
    id: String = "rx1", status: String = "active", dosages: [String], medication: String = #""medicationCodeableConcept": {"text": "Aspirin 100 mg"}"#,
    authoredOn: String = "2016-08-15"
) -> String {
    """
    {"resourceType": "MedicationRequest", "id": "\(id)", "status": "\(status)", "intent": "order",
     \(medication), "subject": {"reference": "Patient/p1"}, "authoredOn": "\(authoredOn)",
     "dosageInstruction": [\(dosages.joined(separator: ", "))]}
    """
}

func bundle(_ resources: [String]) -> String {
    #"{"resourceType": "Bundle", "type": "collection", "entry": ["# + resources.map { #"{"resource": \#($0)}"# }.joined(separator: ", ") + "]}"
}

func parse(_ json: String) throws -> FHIRInput {
    try FHIRInput.parse(Data(json.utf8))
}

func mapper(today: CalendarDay = importDay) throws -> OrderMapper {
    OrderMapper(today: today, timeZone: berlin, language: try Language("en"))
}

/// The events a schedule has on `day`, by the real expansion: their times, `--:--` for none.
func events(_ activity: Activity, on day: CalendarDay) -> [String] {
    ActivityVersion(activity: activity, version: 1, effectiveFrom: activity.schedule.start).events(on: day)
        .map { $0.time?.description ?? "--:--" }
}

/// Runs `body` with a new store in a temporary directory, removed afterwards.
func withStore(_ body: (CarePlanStore, String) async throws -> Void) async throws {
    let scratch = Scratch()
    defer { withExtendedLifetime(scratch) {} }
    let directory = scratch.url
    let store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
    try await store.core.plan.configure(title: "Medications", timeZone: berlin, device: "test")
    try await body(store, directory.path)
}
