@testable import CareFHIR
import CarePlan
import Foundation
import Testing

/// The pieces of an export's JSON: times, identifiers, the two resource shapes, the Bundle.
struct ExportFormatTests {
    let dose = DoseAdministration(
        identifier: Identifier(system: "urn:caresync:plan:p:administration", value: "a|b/2026-11-23/0/7"),
        status: .notGiven(reason: nil), medication: CodeableConcept(text: "Amlodipine"),
        subject: LinkedResource("Patient/p1"),
        order: LinkedResource(
            "MedicationRequest/rx-1", identifier: Identifier(system: "urn:example:rx", value: "RX-1"), display: "Amlodipine"),
        effective: .dateTime("2026-11-23T08:00:00.000+01:00"), recorder: ExportIdentifiers(planID: "p").device("watch"),
        dose: Quantity(value: 1, unit: "tablet"), dosageText: nil, revision: 7)

    @Test(arguments: [
        ("Europe/Vienna", 1_795_417_200.0, "2026-11-23T08:00:00.000+01:00"),
        ("Europe/Vienna", 1_782_626_400.5, "2026-06-28T08:00:00.500+02:00"),
        // To the nearest millisecond, as every JSON output writes the same instant (a dose's
        // recording time, truncated here and rounded there, failed an export test).
        ("Europe/Vienna", 1_795_417_200.1236, "2026-11-23T08:00:00.124+01:00"),
        ("UTC", 1_795_417_200.0, "2026-11-23T07:00:00.000Z"),
        ("Asia/Kolkata", 1_795_417_200.0, "2026-11-23T12:30:00.000+05:30"),
        ("America/New_York", 1_795_417_200.0, "2026-11-23T02:00:00.000-05:00"),
        ("Pacific/Kiritimati", 1_795_417_200.0, "2026-11-23T21:00:00.000+14:00"),
    ])
    func dateTimesCarryTheOffsetOfTheirZoneAtThatInstant(zone: String, seconds: Double, expected: String) {
        #expect(FHIRDateTime.string(Date(timeIntervalSince1970: seconds), in: TimeZone(identifier: zone)!) == expected)
        #expect(FHIRDateTime(expected)?.instant == Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000))
    }

    @Test func identifierSearchesAreEscapedForFHIRAndTheURL() {
        #expect(ExportIdentifiers.search(dose.identifier)
            == "identifier=urn%3Acaresync%3Aplan%3Ap%3Aadministration%7Ca%5C%7Cb%2F2026-11-23%2F0%2F7")
        #expect(ExportIdentifiers.search(Identifier(system: "s", value: "x,y$z\\ü"))
            == "identifier=s%7Cx%5C%2Cy%5C%24z%5C%5C%C3%BC")
    }

    @Test func theR4ShapeHasStatusReasonRequestAndDevice() throws {
        let r4 = dose.r4
        #expect(r4.status == "not-done")
        #expect(r4.statusReason == [CodeableConcept(text: "No reason recorded")])
        #expect(r4.request == Reference(reference: "MedicationRequest/rx-1", display: "Amlodipine"))
        #expect(r4.subject == Reference(reference: "Patient/p1"))
        #expect(r4.performer?.first?.actor.type == "Device")
        #expect(r4.effectiveDateTime == "2026-11-23T08:00:00.000+01:00")
        var given = dose
        given.status = .given
        #expect(given.r4.status == "completed")
        #expect(given.r4.statusReason == nil)
        given.status = .replaced
        #expect(given.r4.status == "entered-in-error")
    }

    @Test func theDSTU2ShapeHasWasNotGivenPrescriptionAndEffectiveTime() throws {
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(dose.dstu2)) as! [String: Any]
        #expect(json["wasNotGiven"] as? Bool == true)
        // An R4 order: DSTU2 can only describe it.
        #expect(json["prescription"] as? [String: String] == ["display": "Amlodipine (identifier urn:example:rx|RX-1)"])
        #expect((json["patient"] as? [String: Any])?["reference"] as? String == "Patient/p1")
        #expect(json["effectiveTimeDateTime"] as? String == "2026-11-23T08:00:00.000+01:00")
        #expect(json["reasonNotGiven"] != nil)
        #expect(json["status"] as? String == "completed")
        #expect(json["note"] as? String == "Recorded on device watch")
        #expect(((json["dosage"] as? [String: Any])?["quantity"] as? [String: Any])?["unit"] as? String == "tablet")
        for key in ["subject", "request", "effectiveDateTime", "statusReason", "performer"] {
            #expect(json[key] == nil, "\(key)")
        }
    }

    @Test func newDosesAreConditionalCreatesAndReplacedOnesConditionalUpdates() throws {
        var replaced = dose
        replaced.status = .replaced
        let data = try DoseAdministration.bundle([dose, replaced], version: .r4)
        let bundle = try JSONDecoder().decode(TransactionBundle<MedicationAdministration>.self, from: data)
        #expect(bundle.type == "transaction")
        let search = ExportIdentifiers.search(dose.identifier)
        #expect(bundle.entry.map(\.request) == [
            .init(method: "POST", url: "MedicationAdministration", ifNoneExist: search),
            .init(method: "PUT", url: "MedicationAdministration?" + search),
        ])
        #expect(bundle.entry.map(\.resource.status) == ["not-done", "entered-in-error"])
        #expect(try DoseAdministration.bundle([dose, replaced], version: .r4) == data)
    }

    @Test func batchesKeepARevisionTogether() {
        let doses = [1, 2, 2, 3, 3, 3, 4].map { revision in
            var copy = dose
            copy.revision = revision
            return copy
        }
        let batches = AdministrationUploader.batches(doses, size: 2)
        #expect(batches.map { $0.map(\.revision) } == [[1], [2, 2], [3, 3, 3], [4]])
        #expect(AdministrationUploader.batches(doses, size: 100).count == 1)
        #expect(AdministrationUploader.batches([], size: 2).isEmpty)
    }

    @Test func retriesBackOffAndStopAtTheirCountOrBudget() {
        let policy = RetryPolicy(attempts: 6, firstDelay: .milliseconds(500), maximumDelay: .seconds(3), budget: .seconds(10))
        let delays = (1...6).map { policy.delay(after: $0, elapsed: .zero) }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3), nil])
        #expect(policy.delay(after: 2, elapsed: .milliseconds(9500)) == nil)
        #expect(policy.delay(after: 1, elapsed: .milliseconds(9500)) == .milliseconds(500))
        #expect(RetryPolicy(attempts: 0).attempts == 1)
    }

    @Test(arguments: ["", "fhir.example.org", "ftp://fhir.example.org/", "http:///r4", "http://h/r4?x=1", "not a url"])
    func aServerURLMustBeAbsoluteHTTP(url: String) {
        #expect(throws: FHIRExportError.badURL(url)) {
            try TransactionPoster(url: url, policy: RetryPolicy())
        }
    }

    @Test func aRefusalCarriesTheOperationOutcomesText() {
        let body = #"{"resourceType": "OperationOutcome", "issue": [{"diagnostics": "bad status"}, {"details": {"text": "no subject"}}]}"#
        #expect(TransactionPoster.outcome(Data(body.utf8)) == "bad status; no subject")
        #expect(TransactionPoster.outcome(Data("<html>".utf8)) == nil)
    }
}
