import FHIRTestServer
import Foundation
import Testing

/// End-to-end: `caresync fhir import` from a file and from a FHIR server, and `caresync meds`.
struct FHIRCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand
    let bundle = CareSyncCommand.example("fhir/medications-bundle.json")

    init() {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
    }

    @discardableResult
    func importBundle(_ path: String, effective: String = "2016-08-15") async throws -> CareSyncCommand.Result {
        let result = try await caresync.run("fhir", "import", path, "--time-zone", "Europe/Berlin", "--effective", effective)
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return result
    }

    @Test func importReimportAndStop() async throws {
        let first = try await importBundle(bundle)
        #expect(first.lines.contains("added rx-RX-1001  \"Amoxicillin 500 MG Oral Capsule\"  1 capsule 3 times a day for 10 days"))
        #expect(first.lines.contains("added rx-ibu-prn  \"Ibuprofen 200 MG Oral Tablet\"  1 tablet up to 3 times a day when required for pain, at most 3 tablets a day"))
        #expect(first.lines.contains("added rx-metf/2  \"Metformin 850 mg\"  1 tablet after dinner"))
        #expect(first.lines.contains("not scheduled MedicationRequest/old"))
        #expect(first.lines.contains { $0.hasPrefix("warning: Bundle.entry[5].resource.dosageInstruction[0].timing.repeat: an interval of 5 hours") })
        #expect(first.lines.last == "Imported 5 orders, 0 refused, effective 2016-08-15: 5 added, 0 updated, 0 ended, 0 unchanged; revision 6")

        let again = try await importBundle(bundle, effective: "2016-08-16")
        #expect(again.lines.last == "Imported 5 orders, 0 refused, effective 2016-08-16: 0 added, 0 updated, 0 ended, 5 unchanged; revision 6")
        #expect(try await caresync.run("activities").lines.count == 5)

        let stopped = scratch.path("stopped.json")
        let text = try String(contentsOfFile: bundle, encoding: .utf8)
            .replacingOccurrences(of: #""id": "amox",\#n        "identifier": [{"use": "official", "system": "urn:example:rx", "value": "RX-1001"}],\#n        "status": "active""#,
                                  with: #""id": "amox",\#n        "identifier": [{"use": "official", "system": "urn:example:rx", "value": "RX-1001"}],\#n        "status": "stopped""#)
        #expect(text.components(separatedBy: #""status": "stopped""#).count == 3)
        try text.write(toFile: stopped, atomically: true, encoding: .utf8)
        let stop = try await importBundle(stopped, effective: "2016-08-20")
        #expect(stop.lines.contains("ended rx-RX-1001"))
        #expect(try await caresync.run("activities").lines.map { String($0.prefix(while: { $0 != " " })) } == ["rx-ibu-prn", "rx-metf", "rx-metf/2", "rx-salb"])
    }

    /// An order that is refused alone is reported with its path and reason; when nothing
    /// else came in, the command fails and nothing is written.
    @Test func aFileWhoseOnlyOrderIsRefusedWritesNothingAndFails() async throws {
        let bad = scratch.path("bad.json")
        try #"{"resourceType": "MedicationRequest", "id": "x", "status": "active", "medicationCodeableConcept": {"text": "A"}, "dosageInstruction": [{"timing": {"repeat": {"periodUnit": "fortnight", "period": 1}}}]}"#
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try await caresync.run("fhir", "import", bad, "--time-zone", "Europe/Berlin")
        #expect(result.status == 1)
        #expect(result.lines.contains("refused \(bad): MedicationRequest.dosageInstruction[0].timing.repeat.periodUnit: unsupported: unit of time \"fortnight\"; use s, min, h, d, wk, mo or a"))
        #expect(result.stderr == "caresync: nothing imported: every order was refused\n")
        #expect(try await caresync.run("activities").stdout.isEmpty)
    }

    @Test func malformedJSONIsNamedByFileLineAndColumn() async throws {
        let cases = [
            // Foundation alone would have read the trailing comma.
            ("{\"resourceType\": \"Bundle\",\n \"entry\": [\n  {\"resource\": {\"resourceType\": \"Patient\"}},\n ]}", #"line 3, column 44: trailing comma before "]""#),
            ("{\"resourceType\": \"MedicationRequest\", \"status\": 'active'}", #"line 1, column 49: expected a JSON value, found "'""#),
            ("{\"resourceType\": \"MedicationRequest\"", #"line 1, column 37: expected "," or "}", found the end of the file"#),
        ]
        for (index, (json, message)) in cases.enumerated() {
            let file = scratch.path("malformed-\(index).json")
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await caresync.run("fhir", "import", file, "--time-zone", "Europe/Berlin")
            #expect(result.status == 1)
            #expect(result.stderr == "caresync: \(file): \(message)\n")
        }
        #expect(try await caresync.run("activities").stdout.isEmpty)
    }

    /// What a search asks the server to include besides the orders.
    let includes = "_include=MedicationRequest:medication&_include=MedicationRequest:patient"

    /// The other orders are imported; the refused one is named by its page and path, and
    /// `--strict` imports nothing.
    @Test func aServerImportNamesThePageOfAMalformedOrder() async throws {
        // A sixth order, the third on the server's second page of three, has an unknown unit.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle))) as? [String: Any])
        var entries = try #require(document["entry"] as? [[String: Any]])
        entries.append(["resource": [
            "resourceType": "MedicationRequest", "id": "unknown-unit", "status": "active", "medicationCodeableConcept": ["text": "A"],
            "subject": ["reference": "Patient/p1"],
            "dosageInstruction": [["timing": ["repeat": ["frequency": 1, "period": 1, "periodUnit": "fortnight"]]]],
        ]])
        document["entry"] = entries
        let file = scratch.path("bad-bundle.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
        let server = try await FHIRTestServer(loading: [file], options: .init(pageSize: 3))
        let refusal = "\(server.base)/MedicationRequest?patient=p1&\(includes)&page=2: "
            + "Bundle.entry[2].resource.dosageInstruction[0].timing.repeat.periodUnit: unsupported: unit of time \"fortnight\"; use s, min, h, d, wk, mo or a"
        let strict = try await caresync.run(
            "fhir", "import", "--server", server.base, "--patient", "p1", "--time-zone", "Europe/Berlin", "--strict")
        #expect(strict.status == 1)
        #expect(strict.stderr == "caresync: 1 of the orders cannot be imported (nothing was written): \(refusal)\n")
        #expect(try await caresync.run("activities").stdout.isEmpty)
        let result = try await caresync.run("fhir", "import", "--server", server.base, "--patient", "p1", "--time-zone", "Europe/Berlin")
        #expect(result.status == 0)
        #expect(result.lines.contains("refused \(refusal)"))
        #expect(result.lines.last?.hasPrefix("Imported 5 orders, 1 refused") == true, "\(result.stdout)")
        #expect(try await caresync.run("activities").lines.count == 5)
    }

    /// A loading dose without an end, then a maintenance dose: `fhir import` says the
    /// maintenance step is held and why, and `meds` lists it apart, in either language,
    /// with `heldForReview` in its JSON; only the loading dose is due.
    @Test func aHeldStepIsSaidOnImportAndListedByMeds() async throws {
        let order = scratch.path("loading.json")
        try #"""
            {"resourceType": "MedicationRequest", "id": "load", "status": "active", "intent": "order",
             "medicationCodeableConcept": {"text": "Ciprofloxacin 250 mg"}, "subject": {"reference": "Patient/p1"}, "authoredOn": "2016-08-15",
             "dosageInstruction": [
               {"sequence": 1, "text": "Two tablets at once", "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "TAB"}}]},
               {"sequence": 2, "text": "One tablet daily", "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "TAB"}}]}]}
            """#.write(toFile: order, atomically: true, encoding: .utf8)
        let result = try await importBundle(order)
        #expect(result.lines.contains("added rx-load  \"Ciprofloxacin 250 mg\"  2 tablets once a day"))
        #expect(result.lines.contains("held MedicationRequest/load rx-load/2  MedicationRequest.dosageInstruction[1].sequence: held for review: it follows a step of the sequence that has no end, so its start is not given: not scheduled; import a corrected order to schedule it"))
        let english = try await caresync.run("meds")
        #expect(english.lines.contains("MedicationRequest/load: 2 tablets once a day, then 1 tablet once a day"))
        #expect(english.lines.contains("rx-load/2  Ciprofloxacin 250 mg  (held for review)"))
        #expect(english.lines.contains("    1 tablet once a day  — \"One tablet daily\""))
        #expect(english.lines.contains { $0.hasPrefix("    MedicationRequest/load: it follows a step that has no end") })
        let german = try await caresync.run("meds", "--lang", "de")
        #expect(german.lines.contains("rx-load/2  Ciprofloxacin 250 mg  (zur Prüfung zurückgehalten)"))
        #expect(german.lines.contains("MedicationRequest/load: 2 Tabletten einmal täglich, dann 1 Tablette einmal täglich"))
        struct Medication: Decodable { var id: String; var heldForReview: String? }
        let listed = try await caresync.json([Medication].self, "meds", "--json")
        #expect(listed.map(\.id) == ["rx-load", "rx-load/2"])
        #expect(listed.map { $0.heldForReview == nil } == [true, false])
        let today = try await caresync.run("events", "rx-load/2", "--from", "2016-08-15", "--to", "2016-08-20")
        #expect(today.status != 0, "a held step has no activity: \(today.stdout)")
    }

    @Test func medsInTwoLanguagesAndTheAdherenceChart() async throws {
        try await importBundle(bundle)
        let german = try await caresync.run("meds", "--lang", "de")
        #expect(german.lines.contains("rx-RX-1001  Amoxicillin 500 MG Oral Capsule"))
        #expect(german.lines.contains("    1 Kapsel 3-mal täglich 10 Tage lang  — \"Take with food\""))
        #expect(german.lines.contains("    1 Tablette bis zu 3-mal täglich bei Schmerzen, höchstens 3 Tabletten täglich"))
        #expect(german.lines.contains("rx-ibu-prn  Ibuprofen 200 MG Oral Tablet  (bei Bedarf)"))
        // Metformin's two dosages (both sequence 1: taken together) are read as one order, once.
        #expect(german.lines.filter { $0.hasPrefix("MedicationRequest/metf") }
            == ["MedicationRequest/metf: 1 Tablette nach dem Frühstück und 1 Tablette nach dem Abendessen"])
        struct Medication: Decodable {
            var id: String; var instructions: String; var text: String?; var asNeeded: Bool; var order: String?; var orderInstructions: String?
        }
        let english = try await caresync.json([Medication].self, "meds", "--json")
        #expect(english.map(\.id) == ["rx-RX-1001", "rx-ibu-prn", "rx-metf", "rx-metf/2", "rx-salb"])
        #expect(english.first?.order == "MedicationRequest/amox")
        #expect(english.first?.orderInstructions == nil)
        #expect(english.filter { $0.id.hasPrefix("rx-metf") }.map(\.orderInstructions)
            == Array(repeating: "1 tablet after breakfast and 1 tablet after dinner", count: 2))
        #expect(english.last?.instructions == "2 puffs every 5 hours")
        #expect(try await caresync.run("meds", "--lang", "xx").stderr.hasPrefix("caresync: no language \"xx\": available are de, en"))

        for (date, occurrence) in [("2016-08-15", "0"), ("2016-08-15", "1"), ("2016-08-16", "0")] {
            #expect(try await caresync.run("complete", "rx-RX-1001", "--occurrence", occurrence, "--date", date).status == 0)
        }
        #expect(try await caresync.run("complete", "rx-RX-1001", "--occurrence", "1", "--date", "2016-08-16", "--not-done", "--reason", "nausea").status == 0)
        // An as-needed dose is recorded in a slot; nothing is due.
        #expect(try await caresync.run("complete", "rx-ibu-prn", "--occurrence", "0", "--date", "2016-08-16").status == 0)

        let weeks = try await caresync.run("meds", "show", "rx-RX-1001", "--group", "week", "--from", "2016-08-15", "--to", "2016-09-04")
        #expect(weeks.lines.contains("Adherence by week"))
        #expect(weeks.lines.contains("  2016-W33  ███░░░░░░░░░░░░░░░░░  3/21  14%"))
        #expect(weeks.lines.contains("  2016-W34  ░░░░░░░░░░░░░░░░░░░░  0/9  0%"))
        #expect(weeks.lines.contains("  2016-W35  ░░░░░░░░░░░░░░░░░░░░  no doses"))
        // Three a day with no times in the order: at the routine's meals.
        #expect(weeks.lines.contains { $0.hasPrefix("  2016-08-15 08:00  taken at ") })
        #expect(weeks.lines.contains { $0.hasPrefix("  2016-08-16 12:30  not taken, recorded at ") && $0.hasSuffix(": nausea") })
        #expect(weeks.lines.contains("  2016-08-16 18:30  not taken (nothing recorded)"))

        let days = try await caresync.run("meds", "show", "rx-RX-1001", "--group", "day", "--from", "2016-08-14", "--to", "2016-08-16")
        #expect(days.lines.suffix(3) == [
            "  2016-08-14  ░░░░░░░░░░░░░░░░░░░░  no doses",
            "  2016-08-15  █████████████░░░░░░░  2/3  67%",
            "  2016-08-16  ███████░░░░░░░░░░░░░  1/3  33%",
        ])
        let prn = try await caresync.run("meds", "show", "rx-ibu-prn", "--group", "month", "--from", "2016-07-30", "--to", "2016-08-20")
        #expect(prn.lines.suffix(2) == ["  2016-07  ░░░░░░░░░░░░░░░░░░░░  no doses", "  2016-08  ████████████████████  1 taken"])
        #expect(prn.lines.filter { $0.hasPrefix("  2016-08-") }.count == 1)
    }

    @Test func importFromAFHIRServer() async throws {
        let server = try await FHIRTestServer(loading: [bundle], options: .init(pageSize: 4))
        let result = try await caresync.run("fhir", "import", "--server", server.base, "--patient", "p1", "--time-zone", "Europe/Berlin", "--effective", "2016-08-15")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.last == "Imported 5 orders, 0 refused, effective 2016-08-15: 5 added, 0 updated, 0 ended, 0 unchanged; revision 6")
        // Page by page, with the Medications the orders name and the Patient.
        #expect(server.requests.map(\.path) == ["/fhir/MedicationRequest?patient=p1&\(includes)", "/fhir/MedicationRequest?patient=p1&\(includes)&page=2"])
        #expect(try await caresync.run("plan", "show").lines.first?.hasPrefix("Medications of Anna Muster · Europe/Berlin") == true)
        let again = try await caresync.run("fhir", "import", "--server", server.base, "--patient", "p1", "--effective", "2016-08-16")
        #expect(again.lines.last?.hasSuffix("5 unchanged; revision 6") == true)
        // A patient with no orders is an empty search, not an error; a wrong base is.
        let nobody = try await caresync.run("fhir", "import", "--server", server.base, "--patient", "nobody", "--effective", "2016-08-16")
        #expect(nobody.status == 0, "\(nobody.stderr)")
        #expect(nobody.lines.last?.hasPrefix("Imported 0 orders") == true, "\(nobody.stdout)")
        let wrongBase = server.base.replacingOccurrences(of: "/fhir", with: "/nothing")
        let missing = try await caresync.run("fhir", "import", "--server", wrongBase, "--patient", "p1")
        #expect(missing.status == 1)
        #expect(missing.stderr == "caresync: FHIR server \(wrongBase)/MedicationRequest?patient=p1&\(includes): HTTP 404 Not Found\n")
    }
}
