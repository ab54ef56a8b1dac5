import CarePlan
import CareFHIR
import Foundation
import Testing

struct DatatypeTests {
    @Test func datatypesIgnoreUnknownFieldsAndExtensions() throws {
        let json = """
            {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "197361",
              "extension": [{"url": "x", "valueString": "y"}]}, {"display": "Amlodipine 5 mg"}],
             "_text": {"extension": []}, "text": "amlodipine"}
            """
        let concept = try JSONDecoder().decode(CodeableConcept.self, from: Data(json.utf8))
        #expect(concept.displayName == "Amlodipine 5 mg")
        #expect(concept.firstCode == "197361")
        #expect(CodeableConcept(text: "aspirin").displayName == "aspirin")
    }

    @Test func quantitiesKeepDecimals() throws {
        let ratio = try JSONDecoder().decode(
            Ratio.self, from: Data(#"{"numerator": {"value": 0.5, "unit": "tablet"}, "denominator": {"value": 1, "code": "d"}}"#.utf8))
        #expect(ratio.numerator?.value == Decimal(string: "0.5"))
        #expect(ratio.denominator?.code == "d")
    }

    @Test func dateTimesOfEveryPrecision() throws {
        let vienna = TimeZone(identifier: "Europe/Vienna")!
        #expect(FHIRDateTime("2016")?.lastDay(in: vienna) == CalendarDay("2016-12-31"))
        #expect(FHIRDateTime("2016-02")?.lastDay(in: vienna) == CalendarDay("2016-02-29"))
        #expect(FHIRDateTime("2016-12")?.lastDay(in: vienna) == CalendarDay("2016-12-31"))
        #expect(FHIRDateTime("2016-08-15")?.day(in: vienna) == CalendarDay("2016-08-15"))
        // 23:30 in New York is the next morning in Vienna.
        #expect(FHIRDateTime("2016-08-15T23:30:00-04:00")?.day(in: vienna) == CalendarDay("2016-08-16"))
        #expect(FHIRDateTime("2016-13-01") == nil)
        #expect(FHIRDateTime("yesterday") == nil)
        #expect(FHIRDateTime("2016-08-15T25:00:00Z") == nil)
    }
}
