@testable import CareFHIR
import CarePlan
import CarePlanStore
import FHIRTestServer
import Foundation
import Logging
import Testing

/// The primary's upload to the connected health record: Observations, Devices and
/// administrations for the launch's patient, with the person's token; nothing without a
/// connection, after a refused refresh, or without the scopes to create them.
struct HealthRecordUploadTests {
    let records = HealthRecordAuthorizerTests()
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A store with a heart rate and a dose taken on Monday, uploading as the vault says.
    func upload(_ fixture: ExportFixture, _ vault: TokenVault) async throws -> ContinuousUpload {
        let watch = MeasurementSource(id: "watch:sensor", name: "Kitchen watch")
        let sample = MeasurementSample(
            id: "hr-1", type: .heartRate, value: 72, unit: "/min", start: fixture.at("08:05"), sourceID: watch.id)
        _ = try await fixture.store.record([sample], sources: [watch], device: "watch")
        try await fixture.record(occurrence: 0, at: fixture.at("08:02"))
        let authorizer = records.authorizer(vault)
        return ContinuousUpload(
            target: { [logger] in try await vault.uploadTarget(store: fixture.store, authorizer: authorizer, logger: logger) },
            interval: .seconds(1), clock: records.clock) { _ in }
    }

    @Test func measurementsAndDosesGoToTheRecordAsItsPatient() async throws {
        let (server, vault, _) = try await records.connected()
        let fixture = try await ExportFixture()
        defer { fixture.remove() }
        try await upload(fixture, vault).round()
        let observations = server.resources("Observation")
        #expect(observations.count == 1)
        #expect((observations.first?["subject"] as? [String: Any])?["reference"] as? String == "Patient/P1")
        #expect(server.resources("Device").count == 1)
        #expect(server.resources("Patient").isEmpty, "the record's patient is named, not created")
        let doses = server.resources("MedicationAdministration")
        #expect(doses.count == 1)
        #expect((doses.first?["subject"] as? [String: Any])?["reference"] as? String == "Patient/P1", "not the order's Patient/p1")
        await server.stop()
    }

    @Test func nothingGoesWithoutAConnectionAfterARefusedRefreshOrWithoutTheScopes() async throws {
        let (server, vault, connection) = try await records.connected()
        let fixture = try await ExportFixture()
        defer { fixture.remove() }
        let upload = try await upload(fixture, vault)
        let posts = server.requests.count { $0.method == "POST" }
        var narrowed = connection
        narrowed.grantedScope = "launch/patient patient/MedicationRequest.rs patient/Observation.c"
        try vault.keep(narrowed)
        try await upload.round()
        var refused = connection
        refused.signInNeeded = "invalid_grant"
        try vault.keep(refused)
        try await upload.round()
        try vault.forget()
        try await upload.round()
        #expect(server.requests.count { $0.method == "POST" } == posts)
        #expect(try await fixture.store.measurements.cursor("fhir-observations \(server.base)") == nil)
        await server.stop()
    }

    @Test func aPatientIsCreatedOnlyWhenTheServerGaveNone() async throws {
        let fixture = try await ExportFixture()
        defer { fixture.remove() }
        let watch = MeasurementSource(id: "s", name: "Watch")
        let sample = MeasurementSample(id: "m", type: .heartRate, value: 70, unit: "/min", start: fixture.at("09:00"), sourceID: watch.id)
        _ = try await fixture.store.record([sample], sources: [watch], device: "watch")
        let batch = try await fixture.store.measurements.list(storedAfter: 0, takenFrom: nil, limit: 10)
        var info = try await fixture.store.plan.info()
        #expect(throws: FHIRExportError.noPatient) { try ObservationMapper(info: info) }
        let types = { (mapper: ObservationMapper) throws -> [String] in
            let bundle = try JSONSerialization.jsonObject(with: try mapper.bundle(batch)) as? [String: Any]
            return (bundle?["entry"] as? [[String: Any]] ?? []).compactMap { ($0["resource"] as? [String: Any])?["resourceType"] as? String }
        }
        #expect(try types(ObservationMapper(info: info, recordPatient: "P1")) == ["Device", "Observation"])
        info.patient = try CarePlan.Patient(name: "Ada", identifier: "mrn-1")
        #expect(try types(ObservationMapper(info: info, recordPatient: "P1")) == ["Device", "Observation"])
        #expect(try types(ObservationMapper(info: info)) == ["Patient", "Device", "Observation"])
    }
}
