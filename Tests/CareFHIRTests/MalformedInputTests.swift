import CareFHIR
import CarePlan
import Foundation
import Testing

/// Malformed and unsupported input is refused with a typed error naming the JSON path.
struct MalformedInputTests {
    static let path = "MedicationRequest.dosageInstruction[0].timing"

    func error(_ json: String) -> FHIRError? {
        do {
            let input = try parse(json)
            if let refused = input.refused.first { return refused.error }
            _ = try input.orders.map { try mapper().map($0) }
            return nil
        } catch let error as FHIRError {
            return error
        } catch {
            Issue.record("not a FHIRError: \(error)")
            return nil
        }
    }

    func timing(_ timing: String) -> String {
        request(dosages: [#"{"timing": \#(timing)}"#])
    }

    @Test func notJSONNamesLineAndColumn() {
        let cases = [
            ("{\"resourceType\": ", "line 1, column 18: expected a JSON value, found the end of the file"),
            // Foundation alone would accept these two.
            ("{\"resourceType\": \"MedicationRequest\",\n \"id\": \"x\",\n}", #"line 2, column 11: trailing comma before "}""#),
            (#"{"resourceType": "MedicationRequest", "id": "x", "id": "y"}"#, #"line 1, column 50: duplicate field "id""#),
            ("<Bundle xmlns=\"http://hl7.org/fhir\"/>", #"line 1, column 1: expected a JSON value, found "<""#),
        ]
        for (json, message) in cases {
            guard case .notJSON(let syntax) = error(json) else {
                Issue.record("expected notJSON for \(json)")
                continue
            }
            #expect(syntax.description == message)
        }
    }

    @Test func errorsNameTheDocument() async throws {
        #expect(throws: FHIRError.inDocument("orders.json", .invalid(path: "$", "expected a FHIR resource with a resourceType"))) {
            try FHIRInput.parse(Data("[1, 2]".utf8), document: "orders.json")
        }
        let broken = try #require(throws: FHIRError.self) { try FHIRInput.parse(Data("{,}".utf8), document: "orders.json") }
        #expect(broken.description == #"orders.json: line 1, column 2: expected a field name in double quotes, found ",""#)
        // Mapping errors too: they come up after reading, in the importer.
        let input = try FHIRInput.parse(Data(bundle([timing(#"{"repeat": {"when": ["TEATIME"]}}"#)]).utf8), document: "https://fhir.example.org/MedicationRequest?patient=p1")
        try await withStore { store, _ in
            let report = try await FHIRImporter(mapper: try mapper(), device: "test").run(input, into: store)
            #expect(report.refused.map(\.description) == [
                "https://fhir.example.org/MedicationRequest?patient=p1: Bundle.entry[0].resource.dosageInstruction[0].timing.repeat.when[0]: "
                    + "unsupported: event code \"TEATIME\""])
            #expect(report.refused.first?.reference == "MedicationRequest/rx1")
        }
    }

    @Test func aResourceThatCannotBeImported() {
        #expect(error(#"{"resourceType": "Patient", "id": "p1"}"#) == .unsupportedResource(path: "Patient", type: "Patient"))
        #expect(error(#"[1, 2]"#) == .invalid(path: "$", "expected a FHIR resource with a resourceType"))
    }

    @Test func unknownUnitsCodesAndEvents() {
        #expect(error(timing(#"{"repeat": {"frequency": 1, "period": 2, "periodUnit": "fortnight"}}"#))
            == .unsupported(path: Self.path + ".repeat.periodUnit", "unit of time \"fortnight\"; use s, min, h, d, wk, mo or a"))
        #expect(error(timing(#"{"repeat": {"when": ["MORN", "TEATIME"]}}"#))
            == .unsupported(path: Self.path + ".repeat.when[1]", "event code \"TEATIME\""))
        #expect(error(timing(#"{"code": {"coding": [{"code": "Q5D"}]}}"#))
            == .unsupported(path: Self.path + ".code", "timing code \"Q5D\""))
    }

    @Test func malformedValuesNameTheirPath() {
        #expect(error(timing(#"{"repeat": {"timeOfDay": ["8am"]}}"#))
            == .invalid(path: Self.path + ".repeat.timeOfDay[0]", "expected hh:mm:ss, found \"8am\""))
        #expect(error(timing(#"{"repeat": {"dayOfWeek": ["monday"]}}"#))
            == .invalid(path: Self.path + ".repeat.dayOfWeek[0]", "expected mon, tue, wed, thu, fri, sat or sun, found \"monday\""))
        #expect(error(timing(#"{"repeat": {"frequency": "two"}}"#))
            == .invalid(path: Self.path + ".repeat.frequency", "expected an integer"))
        #expect(error(timing(#"{"repeat": {"frequency": 0, "period": 1, "periodUnit": "d"}}"#))
            == .invalid(path: Self.path + ".repeat.frequency", "must be at least 1, found 0"))
        #expect(error(timing(#"{"repeat": {"frequency": 1, "period": 1}}"#))
            == .invalid(path: Self.path + ".repeat.periodUnit", "required with period"))
        #expect(error(timing(#"{"repeat": {"boundsDuration": {"value": 3, "unit": "fortnights"}}}"#))
            == .invalid(path: Self.path + ".repeat.boundsDuration", "expected a duration with a unit of time, found \"fortnights\""))
        // A course of 10¹¹⁰ days trapped converting to Int (found by fuzz-fhir-import).
        #expect(error(timing(#"{"repeat": {"boundsDuration": {"value": 1e110, "code": "d"}}}"#))
            == .invalid(path: Self.path + ".repeat.boundsDuration.value", "expected a duration of at most 100 years, found 1\(String(repeating: "0", count: 110)) d"))
        #expect(error(timing(#"{"repeat": {"boundsRange": {"high": {"value": 101, "code": "a"}}}}"#))
            == .invalid(path: Self.path + ".repeat.boundsRange.high.value", "expected a duration of at most 100 years, found 101 a"))
        #expect(error(timing(#"{"event": ["soon"]}"#))
            == .invalid(path: Self.path + ".event[0]", "expected a FHIR dateTime, found \"soon\""))
        #expect(error(timing(#"{"repeat": {"boundsPeriod": {"start": "2016-08-20", "end": "2016-08-10"}, "frequency": 1, "period": 1, "periodUnit": "d"}}"#))
            == .invalid(path: Self.path, "the end day 2016-08-10 is before the start day 2016-08-20"))
        #expect(error(timing(#"{"repeat": {"boundsDuration": {"value": 3, "comparator": "about", "code": "d"}}}"#))
            == .invalid(path: Self.path + ".repeat.boundsDuration.comparator", "expected <, <=, >= or >, found \"about\""))
    }

    /// More doses a day than a schedule holds is refused before any time is placed: 81 an
    /// hour hung the importer (placing 1944 distinct minutes in a day), and a period of
    /// 10⁻¹⁰⁰ s trapped in Foundation's Decimal (both found by fuzz-fhir-import).
    @Test func moreDosesADayThanAScheduleHoldsAreRefused() throws {
        #expect(error(timing(#"{"repeat": {"frequency": 81, "period": 1, "periodUnit": "h"}}"#))
            == .invalid(path: Self.path, "occurrences per day must be between 0 and 96, found 1944"))
        // Without a period the order is incomplete: no period is invented, nothing is due.
        let incomplete = try #require(try parse(timing(#"{"repeat": {"frequency": 81, "periodUnit": "h"}}"#)).orders.first)
        let mapped = try mapper().map(incomplete)
        #expect(mapped.warnings.map(\.kind) == [.incomplete])
        #expect(mapped.activities.first?.activity.schedule.asNeeded == true)
        #expect(error(timing(#"{"repeat": {"frequency": 4, "period": 1, "periodUnit": "min"}}"#))
            == .invalid(path: Self.path, "occurrences per day must be between 0 and 96, found 5760"))
        #expect(error(timing(#"{"repeat": {"frequency": 9223372036854775807, "period": 1e-100, "periodUnit": "s"}}"#))
            == .invalid(path: Self.path, "occurrences per day must be between 0 and 96, found 1000000000"))
        // A period of 10^100 years is scheduled (every 10^9 days, with a warning), not a trap.
        #expect(error(timing(#"{"repeat": {"frequency": 1, "period": 1e100, "periodUnit": "a"}}"#)) == nil)
    }

    @Test func ordersNeedStatusAndName() {
        #expect(error(#"{"resourceType": "MedicationRequest", "id": "x", "medicationCodeableConcept": {"text": "A"}}"#)
            == .invalid(path: "MedicationRequest.status", "required, but missing"))
        #expect(error(request(status: "paused", dosages: []))
            == .invalid(path: "MedicationRequest.status", "unknown status \"paused\""))
        #expect(error(request(dosages: [], medication: #""medicationCodeableConcept": {"coding": [{"code": "123"}]}"#))
            == .invalid(path: "MedicationRequest", "the medication has no name: give a coding display, a text or a reference display"))
        #expect(error(request(dosages: [], authoredOn: "last tuesday"))
            == .invalid(path: "MedicationRequest.authoredOn", "expected a FHIR dateTime, found \"last tuesday\""))
    }

    @Test func pathsInsideABundle() {
        let json = bundle([#"{"resourceType": "Patient", "id": "p1"}"#, request(dosages: [#"{"doseAndRate": [{"doseQuantity": {"value": "one"}}]}"#])])
        #expect(error(json) == .invalid(path: "Bundle.entry[1].resource.dosageInstruction[0].doseAndRate[0].doseQuantity.value", "expected a number"))
    }

    @Test func unknownFieldsAndExtensionsAreIgnored() throws {
        let dosage = #"{"extension": [{"url": "http://example.org/x", "valueString": "y"}], "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "_period": {"id": "p"}}, "modifierExtension": []}, "futureField": {"a": [1, 2]}}"#
        let order = try #require(try parse(request(dosages: [dosage])).orders.first)
        #expect(order.dosages.first?.timing?.repeat?.frequency == 1)
        // The payload keeps every field, known or not.
        #expect(String(decoding: order.payload, as: UTF8.self).contains("futureField"))
    }
}
