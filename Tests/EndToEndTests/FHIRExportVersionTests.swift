import Foundation
import Testing

/// End-to-end: R4 MedicationRequests and DSTU2 MedicationOrders imported into one store, their
/// doses exported as R4 and as DSTU2. Each export references only resource types of its
/// version (the validators' own lists), links its own version's orders, names the other
/// version's by identifier (R4) or in text (DSTU2), and its version's validator accepts it.
struct FHIRExportVersionTests {
    static let dstu2Orders = CareSyncCommand.repository.appendingPathComponent("Tests/Fixtures/fhir/dstu2-medication-orders.json").path
    let round: FHIRExportTests

    init() async throws {
        round = try await FHIRExportTests()
        try await round.run("fhir", "import", Self.dstu2Orders, "--time-zone", "Europe/Berlin", "--effective", "2016-08-15")
        try await round.recordDoses()
        for activity in ["rx-D-2001", "rx-asa", "rx-D-2003"] {
            try await round.run("complete", activity, "--occurrence", "0", "--date", "2016-08-15")
        }
    }

    func export(dstu2: Bool) async throws -> [String: Any] {
        try await dstu2 ? round.export("--dstu2") : round.export()
    }

    /// The administrations of an export, by activity (the first part of their identifier).
    func resources(_ bundle: [String: Any]) -> [String: [String: Any]] {
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        return Dictionary(resources.map { resource in
            let identifier = value(resource, "identifier", 0, "value") as? String ?? ""
            return (String(identifier.prefix { $0 != "/" }), resource)
        }, uniquingKeysWith: { first, _ in first })
    }

    /// `urn:caresync:plan:PLAN-ID`, from the administrations' identifier system.
    func plan(_ bundle: [String: Any]) -> String {
        let system = value(bundle, "entry", 0, "resource", "identifier", 0, "system") as? String ?? ""
        return String(system.dropLast(":administration".count))
    }

    @Test func theDSTU2FixtureIsDSTU2() async throws {
        let validation = try await FHIRValidator.validate(Self.dstu2Orders, dstu2: true)
        #expect(validation.status == 0, "\(validation.stdout)")
        #expect(validation.lines.last == "5 resources, 5 valid, 0 invalid")
    }

    @Test(arguments: [false, true])
    func everyReferenceNamesAResourceTypeOfTheExportsVersionAndTheValidatorAgrees(dstu2: Bool) async throws {
        let bundle = try await export(dstu2: dstu2)
        let types = try await FHIRValidator.resourceTypes(dstu2: dstu2)
        #expect(types.count > 90)
        #expect(types.contains(dstu2 ? "MedicationOrder" : "MedicationRequest"))
        #expect(!types.contains(dstu2 ? "MedicationRequest" : "MedicationOrder"))
        let referenced = referencedTypes(bundle)
        #expect(referenced.filter { !types.contains($0.type) }.map(\.from) == [])
        #expect(Set(referenced.map(\.type)) == (dstu2 ? ["Patient", "MedicationOrder"] : ["Patient", "MedicationRequest", "Device"]))

        let file = round.scratch.path("export-\(dstu2 ? "dstu2" : "r4").json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: file))
        let validation = try await FHIRValidator.validate(file, dstu2: dstu2)
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
        #expect(validation.lines.last == "9 resources, 9 valid, 0 invalid")
    }

    @Test func r4LinksItsOwnOrdersAndNamesDSTU2OnesByIdentifier() async throws {
        let bundle = try await export(dstu2: false)
        let requests = resources(bundle).mapValues { canonical($0["request"] as? [String: Any]) }
        let orders = "\(plan(bundle)):order"
        #expect(requests["rx-RX-1001"] == canonical(["reference": "MedicationRequest/amox", "display": "Amoxicillin 500 MG Oral Capsule"]))
        #expect(requests["rx-metf"] == canonical(["reference": "MedicationRequest/metf", "display": "Metformin 850 mg"]))
        // DSTU2 orders: not claimed to be MedicationRequests, so no `type`.
        #expect(requests["rx-D-2001"] == canonical([
            "identifier": ["use": "official", "system": "urn:example:dstu2-rx", "value": "D-2001"],
            "display": "Lisinopril 10 MG Oral Tablet",
        ]))
        #expect(requests["rx-asa"] == canonical(["identifier": ["system": orders, "value": "MedicationOrder/asa"], "display": "Aspirin 100 mg"]))
        #expect(requests["rx-D-2003"] == canonical([
            "identifier": ["system": "urn:example:dstu2-rx", "value": "D-2003"], "display": "Simvastatin 20 mg",
        ]))
        #expect(resources(bundle).values.allSatisfy { canonical($0["subject"] as? [String: Any]) == canonical(["reference": "Patient/p1"]) })
    }

    @Test func dstu2LinksItsOwnOrdersAndDescribesR4Ones() async throws {
        let bundle = try await export(dstu2: true)
        let prescriptions = resources(bundle).mapValues { canonical($0["prescription"] as? [String: Any]) }
        let orders = "\(plan(bundle)):order"
        #expect(prescriptions["rx-D-2001"] == canonical(["reference": "MedicationOrder/lisi", "display": "Lisinopril 10 MG Oral Tablet"]))
        #expect(prescriptions["rx-asa"] == canonical(["reference": "MedicationOrder/asa", "display": "Aspirin 100 mg"]))
        // DSTU2's Reference has only `reference` and `display`: orders without an id, and R4's, are described.
        #expect(prescriptions["rx-D-2003"] == canonical(["display": "Simvastatin 20 mg (identifier urn:example:dstu2-rx|D-2003)"]))
        #expect(prescriptions["rx-RX-1001"] == canonical(["display": "Amoxicillin 500 MG Oral Capsule (identifier urn:example:rx|RX-1001)"]))
        #expect(prescriptions["rx-metf"] == canonical(["display": "Metformin 850 mg (identifier \(orders)|MedicationRequest/metf)"]))
        #expect(resources(bundle).values.allSatisfy { canonical($0["patient"] as? [String: Any]) == canonical(["reference": "Patient/p1"]) })
    }

    @Test func theDSTU2ValidatorRejectsBrokenResources() async throws {
        var bundle = try await export(dstu2: true)
        var entries = try #require(bundle["entry"] as? [[String: Any]])
        let breakages: [[String: Any]] = [
            ["statusReason": [["text": "nausea"]]], ["wasNotGiven": "yes"], ["dosis": 1], ["status": "not-done"],
            ["prescription": ["reference": "MedicationRequest/amox"]],
            ["effectiveTimeDateTime": "2016-08-15T08:00", "effectiveTimePeriod": ["start": "2016-08-15"]],
        ]
        for (index, broken) in breakages.enumerated() {
            let resource = try #require(entries[index]["resource"] as? [String: Any])
            entries[index]["resource"] = resource.merging(broken) { _, new in new }
        }
        entries.append(["resource": ["resourceType": "MedicationRequest", "status": "active"]])
        bundle["entry"] = entries
        let file = round.scratch.path("broken-dstu2.json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: file))
        let result = try await FHIRValidator.validate(file, dstu2: true)
        #expect(result.status == 1)
        #expect(result.lines.last == "10 resources, 2 valid, 8 invalid")
        for message in [
            #"Superfluous entry "statusReason" in data for MedicationAdministration"#,
            #"wasNotGiven: Wrong type str for property "wasNotGiven" on MedicationAdministration, expecting bool"#,
            #"Superfluous entry "dosis" in data for MedicationAdministration"#,
            "status: 'not-done' is not in the required value set",
            "prescription.reference: 'MedicationRequest/amox' names 'MedicationRequest', which is not a resource type of DSTU2",
            "(root): effectiveTime[x] has more than one value (effectiveTimeDateTime, effectiveTimePeriod)",
            "effectiveTimeDateTime: '2016-08-15T08:00' is not a DSTU2 dateTime",
            "resourceType 'MedicationRequest' is not a DSTU2 resource type",
        ] {
            #expect(result.stdout.contains(message), "\(message)\n\(result.stdout)")
        }
    }
}

/// `object` as JSON with sorted keys, to compare.
func canonical(_ object: [String: Any]?) -> String {
    guard let object, let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "nil" }
    return String(decoding: data, as: UTF8.self)
}
