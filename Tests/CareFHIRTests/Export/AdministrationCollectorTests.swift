import CareFHIR
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// The store's outcomes of medication events as administrations.
struct AdministrationCollectorTests {
    let fixture: ExportFixture

    init() async throws {
        fixture = try await ExportFixture()
    }

    func collect(after: Int = 0) async throws -> AdministrationExport {
        try await AdministrationCollector(store: fixture.store).collect(after: after)
    }

    @Test func eachOutcomeOfAMedicationIsOneDoseWithItsOrderPatientDeviceAndTime() async throws {
        defer { fixture.remove() }
        let given = try await fixture.record(occurrence: 0, at: fixture.at("08:05"))
        let missed = try await fixture.record(occurrence: 1, .notCompleted, at: fixture.at("21:00"), reason: "nausea")
        try await fixture.record("walk", occurrence: 0, at: fixture.at("09:00"))
        let export = try await collect()
        #expect(await export.through == (try fixture.store.revision()))
        #expect(export.doses.map(\.revision) == [given, missed])
        let planID = try await fixture.store.plan.info().planID
        let dose = export.doses[0]
        #expect(dose.identifier == Identifier(
            use: "official", system: "urn:caresync:plan:\(planID):administration", value: "amlo/2026-11-23/0/\(given)"))
        #expect(dose.status == .given)
        #expect(dose.subject == LinkedResource("Patient/p1"))
        // The order has no business identifier: CareSync names it by its reference.
        #expect(dose.order == LinkedResource(
            "MedicationRequest/rx-1", identifier: Identifier(system: "urn:caresync:plan:\(planID):order", value: "MedicationRequest/rx-1"),
            display: "Amlodipine 5 MG Oral Tablet"))
        #expect(dose.medication.coding?.first?.code == "197361")
        #expect(dose.effective == .dateTime("2026-11-23T08:05:00.000+01:00"))
        #expect(dose.recorder.identifier == Identifier(system: "urn:caresync:plan:\(planID):device", value: "watch"))
        #expect(dose.dose == Quantity(value: 1, unit: "tablet"))
        #expect(dose.dosageText == "1 tablet twice a day")
        #expect(export.doses[1].status == .notGiven(reason: "nausea"))
        #expect(export.doses[1].effective == .dateTime("2026-11-23T21:00:00.000+01:00"))
    }

    @Test func aDoseRecordedOnAnotherDayTakesItsScheduledTime() async throws {
        defer { fixture.remove() }
        let tuesday = fixture.monday.adding(days: 1)
        try await fixture.record(occurrence: 1, at: fixture.at("07:00", on: tuesday))
        try await fixture.record(occurrence: 0, day: tuesday, at: fixture.at("23:30"))
        #expect(try await collect().doses.map(\.effective) == [
            .dateTime("2026-11-23T20:00:00.000+01:00"), .dateTime("2026-11-24T08:00:00.000+01:00"),
        ])
    }

    @Test func aReplacedOutcomeIsExportedAsReplacedWithTheChangeThatReplacedIt() async throws {
        defer { fixture.remove() }
        let first = try await fixture.record(occurrence: 0, at: fixture.at("08:00"))
        let second = try await fixture.record(occurrence: 0, .notCompleted, at: fixture.at("08:10"))
        let reset = try await fixture.record(occurrence: 1, at: fixture.at("20:00"))
        let cleared = try await fixture.record(occurrence: 1, .initial, at: fixture.at("20:05"))
        let all = try await collect()
        #expect(all.doses.map(\.identifier.value) == [
            "amlo/2026-11-23/0/\(first)", "amlo/2026-11-23/0/\(second)", "amlo/2026-11-23/1/\(reset)",
        ])
        #expect(all.doses.map(\.status) == [.replaced, .notGiven(reason: nil), .replaced])
        #expect(all.doses.map(\.revision) == [second, second, cleared])
        // After the first outcome: the replacement still sends the replaced one.
        #expect(try await collect(after: first).doses.count == 3)
        // After everything: nothing.
        #expect(try await collect(after: cleared).doses.isEmpty)
        // A later reset withdraws a dose exported before.
        #expect(try await collect(after: reset).doses.map(\.identifier.value) == ["amlo/2026-11-23/1/\(reset)"])
    }

    @Test func aRecordedDoseWithAUnitIsTheDoseGiven() async throws {
        defer { fixture.remove() }
        try await fixture.record(occurrence: 0, at: fixture.at("08:00"), values: [OutcomeValue(.decimal(0.5), unit: "tablet")])
        #expect(try await collect().doses.first?.dose == Quantity(value: Decimal(string: "0.5"), unit: "tablet"))
    }

    @Test func anOrderWithoutPatientOrReadableJSONIsRefusedByName() async throws {
        for (order, subject, message) in [
            (ExportFixture.order, nil as String?, "it names no patient"), ("{not json", "Patient/p1", "its stored order cannot be read"),
            (ExportFixture.order, "Practitioner/d1", "its subject \"Practitioner/d1\" is not a Patient or Group"),
        ] {
            let broken = try await ExportFixture(order: order, subject: subject)
            defer { broken.remove() }
            try await broken.record(occurrence: 0, at: broken.at("08:00"))
            let error = await #expect(throws: FHIRExportError.self) {
                try await AdministrationCollector(store: broken.store).collect(after: 0)
            }
            #expect(error?.description.hasPrefix("the order of \"amlo\" cannot be exported: \(message)") == true)
        }
    }

    @Test func anOrdersOfficialIdentifierNamesIt() async throws {
        let identifiers = #"[{"system": "urn:example:old", "value": "OLD-1"}, {"use": "official", "system": "urn:example:rx", "value": "RX-1"}]"#
        let order = ExportFixture.order.replacingOccurrences(of: #""id": "rx-1","#, with: #""id": "rx-1", "identifier": \#(identifiers),"#)
        let fixture = try await ExportFixture(order: order)
        defer { fixture.remove() }
        try await fixture.record(occurrence: 0, at: fixture.at("08:00"))
        let dose = try #require(try await AdministrationCollector(store: fixture.store).collect(after: 0).doses.first)
        #expect(dose.order.identifier == Identifier(use: "official", system: "urn:example:rx", value: "RX-1"))
        #expect(dose.order.literal == "MedicationRequest/rx-1")
    }

    @Test func aPrescribedDoseWithAComparatorIsNoDoseGiven() async throws {
        let order = ExportFixture.order.replacingOccurrences(of: #""doseQuantity": {"#, with: #""doseQuantity": {"comparator": "<", "#)
        let fixture = try await ExportFixture(order: order)
        defer { fixture.remove() }
        try await fixture.record(occurrence: 0, at: fixture.at("08:00"))
        try await fixture.record(occurrence: 1, at: fixture.at("20:00"), values: [OutcomeValue(.integer(1), unit: "tablet")])
        #expect(try await AdministrationCollector(store: fixture.store).collect(after: 0).doses.map(\.dose)
            == [nil, Quantity(value: 1, unit: "tablet")])
    }

    @Test func theMedicationComesFromAContainedMedicationOrTheActivity() async throws {
        let contained = """
            {"resourceType": "MedicationRequest", "id": "rx-2", "status": "active", "medicationReference": {"reference": "#m"},
             "contained": [{"resourceType": "Medication", "id": "m", "code": {"text": "Metformin 500 mg"}}]}
            """
        let referenced = #"{"resourceType": "MedicationOrder", "id": "o", "status": "active", "medicationReference": {"reference": "Medication/9"}}"#
        for (order, text) in [(contained, "Metformin 500 mg"), (referenced, "amlo")] {
            let fixture = try await ExportFixture(order: order)
            defer { fixture.remove() }
            try await fixture.record(occurrence: 0, at: fixture.at("08:00"))
            let dose = try #require(try await AdministrationCollector(store: fixture.store).collect(after: 0).doses.first)
            #expect(dose.medication.text == text)
            #expect(dose.dose == nil)
        }
    }
}
