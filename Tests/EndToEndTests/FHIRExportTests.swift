import Foundation
import Testing

/// End-to-end round trip: orders in with `caresync fhir import`, doses taken and missed with
/// `caresync complete`, administrations out with `caresync fhir export`, checked one to one
/// against the change log and by the independent validator.
struct FHIRExportTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        try await run("fhir", "import", CareSyncCommand.example("fhir/medications-bundle.json"),
                "--time-zone", "Europe/Berlin", "--effective", "2016-08-15")
    }

    /// Runs `caresync ARGS… --store STORE` and requires it to succeed.
    @discardableResult
    func run(_ arguments: String...) async throws -> CareSyncCommand.Result {
        let result = try await caresync.run(arguments)
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return result
    }

    /// Amoxicillin taken and missed on its first day (no times: the whole day), ibuprofen as
    /// needed with the dose taken, metformin a past day (at 08:30) and today.
    func recordDoses() async throws {
        try await run("complete", "rx-RX-1001", "--occurrence", "0", "--date", "2016-08-15")
        try await run("complete", "rx-RX-1001", "--occurrence", "1", "--date", "2016-08-15", "--not-done", "--reason", "nausea")
        try await run("complete", "rx-ibu-prn", "--occurrence", "0", "--date", "2016-08-16", "--value", "2", "--unit", "tablet")
        try await run("complete", "rx-metf", "--occurrence", "0", "--date", "2016-08-16", "--not-done")
        try await run("complete", "rx-metf", "--occurrence", "0")
    }

    func export(_ arguments: String...) async throws -> [String: Any] {
        let file = scratch.path("export-\(UUID().uuidString).json")
        try await caresync.run(["fhir", "export", "--out", file] + arguments).requireSuccess()
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as! [String: Any]
    }

    @Test func administrationsMatchTheDosesOneToOneAndValidate() async throws {
        try await recordDoses()
        let bundle = try await export()
        let entries = value(bundle, "entry") as? [[String: Any]] ?? []
        let doses = try await caresync.run("history", "--json").lines.map { try JSONDecoder().decode(Change.self, from: Data($0.utf8)) }
            .filter { $0.kind == "outcomeRecorded" }
        #expect(doses.count == 5)
        #expect(entries.count == doses.count)
        let orders = await Dictionary(uniqueKeysWithValues: try caresync.json([Med].self, "meds", "--json").map { ($0.id, $0) })
        for dose in doses {
            let event = try #require(dose.event)
            let outcome = try #require(dose.outcome)
            let id = "\(event.activity)/\(event.day)/\(event.occurrence)/\(dose.revision)"
            let entry = try #require(entries.first { value($0, "resource", "identifier", 0, "value") as? String == id }, "\(id)")
            let resource = try #require(entry["resource"] as? [String: Any])
            #expect(value(entry, "request", "method") as? String == "POST")
            #expect((value(entry, "request", "ifNoneExist") as? String)?.hasPrefix("identifier=urn%3Acaresync%3Aplan%3A") == true)
            #expect(resource["status"] as? String == (outcome.state == "completed" ? "completed" : "not-done"))
            if outcome.state == "notCompleted" {
                #expect(value(resource, "statusReason", 0, "text") as? String == outcome.reason ?? "No reason recorded")
            }
            #expect(value(resource, "subject", "reference") as? String == "Patient/p1")
            #expect(value(resource, "request", "reference") as? String == orders[event.activity]?.order)
            let medication = value(resource, "medicationCodeableConcept", "coding", 0, "display") ?? value(resource, "medicationCodeableConcept", "text")
            #expect(medication as? String == orders[event.activity]?.title)
            #expect(value(resource, "performer", 0, "actor", "identifier", "value") as? String == "caresync-cli")
            #expect(value(resource, "performer", 0, "actor", "type") as? String == "Device")
            try await expectEffective(resource, event: event, recordedAt: outcome.recordedAt)
        }
        let ibuprofen = entries.first { value($0, "resource", "request", "reference") as? String == "MedicationRequest/ibu-prn" }
        #expect(value(ibuprofen, "resource", "dosage", "dose", "value") as? Int == 2)

        let file = scratch.path("export.json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: file))
        let validation = try await FHIRValidator.validate(file)
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
        #expect(validation.lines.last == "6 resources, 6 valid, 0 invalid")
    }

    /// The recording time if it is on the event's day; else the scheduled time; else the day.
    func expectEffective(_ resource: [String: Any], event: Change.Key, recordedAt: String) async throws {
        let recorded = try #require(Timestamp.date(recordedAt))
        if event.day == dayInBerlin(recorded) {
            let text = try #require(resource["effectiveDateTime"] as? String)
            #expect(Timestamp.date(text) == recorded)
            #expect(text.hasSuffix(offsetInBerlin(recorded)))
            return
        }
        let time = try await caresync.json(EventList.self, "events", event.activity, "--from", event.day, "--to", event.day, "--json")
            .events.first { $0.occurrence == event.occurrence }?.time
        if let time {
            #expect(resource["effectiveDateTime"] as? String == "\(event.day)T\(time):00.000+02:00")
        } else {
            #expect(value(resource, "effectivePeriod", "start") as? String == "\(event.day)T00:00:00.000+02:00")
        }
    }

    @Test func theValidatorRejectsBrokenResources() async throws {
        try await recordDoses()
        var bundle = try await export()
        var entries = bundle["entry"] as! [[String: Any]]
        var resource = entries[0]["resource"] as! [String: Any]
        resource["status"] = "given"
        resource["subject"] = nil
        entries[0]["resource"] = resource
        entries[1]["resource"] = ["resourceType": "Prescription"]
        var request = entries[2]["resource"] as! [String: Any]
        request["request"] = ["reference": "MedicationOrder/amox"]
        entries[2]["resource"] = request
        bundle["entry"] = entries
        let file = scratch.path("broken.json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: file))
        let result = try await FHIRValidator.validate(file)
        #expect(result.status == 1)
        #expect(result.lines.last == "6 resources, 2 valid, 4 invalid")
        #expect(result.stdout.contains("status: 'given' is not in the required value set"))
        #expect(result.stdout.contains("subject\n      Field required"))
        #expect(result.stdout.contains(#"fhirclient 4.x (R4 4.0.1): Non-optional property "subject" on MedicationAdministration is missing"#),
                "the second validator refuses it too: \(result.stdout)")
        #expect(result.stdout.contains("resourceType 'Prescription' is not one this validator knows"))
        #expect(result.stdout.contains(
            "request.reference: 'MedicationOrder/amox' names 'MedicationOrder', which is not a resource type of R4"))
    }

    @Test func theValidatorFailsClearlyWhenItCannotInstallItsEnvironment() async throws {
        // A copy of the script makes its environment beside it, where pip finds no index.
        let scripts = scratch.url.appendingPathComponent("scripts")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        let copy = scripts.appendingPathComponent("fhir-validate")
        try FileManager.default.copyItem(
            at: CareSyncCommand.repository.appendingPathComponent("scripts/fhir-validate"), to: copy)
        // Run by its interpreter, not exec'd: a process another test forks while the copy is
        // still open for writing holds that descriptor, and exec'ing the file then fails
        // with "Text file busy".
        let result = try await CareSyncCommand.run(executable: URL(fileURLWithPath: "/usr/bin/env"), [
            "PIP_INDEX_URL=http://127.0.0.1:1/simple", "PIP_RETRIES=0", "PIP_TIMEOUT=2", "python3", copy.path, "-",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("fhir-validate: making \(scratch.path(".build-fhir-venv/env")) (first use"))
        #expect(result.stderr.contains("\nfhir-validate: cannot prepare \(scratch.path(".build-fhir-venv/env")): "))
        #expect(result.stderr.contains("No matching distribution found for fhir.resources"))
        #expect(result.stdout.isEmpty)
    }

    @Test func theDSTU2ShapeHasWasNotGivenAndPrescriptionAndValidates() async throws {
        try await recordDoses()
        let bundle = try await export("--dstu2")
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        let missed = try #require(entries.first { value($0, "resource", "wasNotGiven") as? Bool == true })
        #expect(value(missed, "resource", "reasonNotGiven", 0, "text") as? String == "nausea")
        // The order is an R4 MedicationRequest, which DSTU2 does not have: described, not referenced.
        #expect(value(missed, "resource", "prescription") as? [String: String]
            == ["display": "Amoxicillin 500 MG Oral Capsule (identifier urn:example:rx|RX-1001)"])
        #expect(value(missed, "resource", "patient", "reference") as? String == "Patient/p1")
        #expect(entries.allSatisfy { value($0, "resource", "subject") == nil && value($0, "resource", "status") as? String == "completed" })
        #expect(entries.contains { value($0, "resource", "effectiveTimeDateTime") as? String == "2016-08-16T08:30:00.000+02:00" })

        let file = scratch.path("export-dstu2.json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: file))
        let validation = try await FHIRValidator.validate(file, dstu2: true)
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
        #expect(validation.lines.last == "6 resources, 6 valid, 0 invalid")
    }

    func dayInBerlin(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    func offsetInBerlin(_ date: Date) -> String {
        let minutes = berlin.secondsFromGMT(for: date) / 60
        return (minutes < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(minutes) / 60, abs(minutes) % 60)
    }
}

/// An entry of `meds --json`.
struct Med: Decodable {
    var id: String
    var order: String?
    var title: String
}

enum Timestamp {
    static func date(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }
}

extension CareSyncCommand {
    /// Runs `caresync ARGS… --store STORE` to completion.
    func run(_ arguments: [String]) async throws -> Result {
        try await Self.run(executable: Self.executable, arguments + ["--store", store])
    }
}

extension CareSyncCommand.Result {
    func requireSuccess() throws {
        guard status == 0 else { throw CommandFailed(result: self) }
    }
}
