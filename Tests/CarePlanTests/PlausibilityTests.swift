import CarePlan
import Foundation
import Testing

/// What a person reads (issue 53, item 8): a reading no body or counter gives is refused for
/// every kind of measurement, a blood pressure is systolic over diastolic, a value is in the
/// result's unit (typed in another that converts, it is converted), and an intervention is
/// done without a value.
struct PlausibilityTests {
    static let start = CalendarDay("2026-11-23")!

    static func assessment(_ id: String, _ result: ResultKind) throws -> Activity {
        try Activity(identifier: id, kind: .assessment, title: id, result: result, schedule: .daily(occurrences: 1, start: start))
    }

    static func refusal(_ activity: Activity, _ values: [OutcomeValue]) -> ResultError? {
        do throws(ResultError) {
            try activity.checkResult(values)
            return nil
        } catch {
            return error
        }
    }

    static func refusal(_ activity: Activity, _ numbers: Double..., unit: String) -> ResultError? {
        refusal(activity, numbers.map { OutcomeValue(.decimal($0), unit: unit) })
    }

    @Test func everyKindOfMeasurementHasItsRange() throws {
        let weight = try Self.assessment("weight", .number(unit: "kg"))
        for number in [-3, 0, 725, 1e3] {
            #expect(Self.refusal(weight, number, unit: "kg") == .implausible(number, 0.25...650), "\(number) kg")
        }
        #expect(Self.refusal(weight, 72.5, unit: "kg") == nil)
        #expect(Self.refusal(weight, [OutcomeValue(.decimal(72.5))]) == nil, "a value without a unit is in the result's")
        #expect(Self.refusal(weight, [OutcomeValue(.integer(725))]) == .implausible(725, 0.25...650))

        // Each kind of measurement: a reading a body or a counter gives, one it does not, and
        // the range the refusal shows, in the result's unit.
        let kinds: [(unit: String, given: Double, refused: Double, range: ClosedRange<Double>)] = [
            ("°C", 36.8, 50, 25...45), ("°F", 98.6, 36.8, 77...113), ("bpm", 72, 8, 20...300), ("steps", 8000, -1, 0...100_000),
            ("mmol/L", 5.6, 101, 0.5...55), ("mg/dL", 101, 1000, 10...990), ("%", 97, 101, 0...100),
        ]
        for kind in kinds {
            let reading = try Self.assessment("reading", .number(unit: kind.unit))
            #expect(Self.refusal(reading, kind.given, unit: kind.unit) == nil, "\(kind.given) \(kind.unit)")
            #expect(Self.refusal(reading, kind.refused, unit: kind.unit) == .implausible(kind.refused, kind.range), "\(kind.refused) \(kind.unit)")
        }
        let fahrenheit = try Self.assessment("fahrenheit", .number(unit: "°F"))
        #expect(Self.refusal(fahrenheit, 113, unit: "°F") == nil, "45 °C exactly")
        // A unit the table does not know has no range: only its unit is checked.
        let waist = try Self.assessment("waist", .number(unit: "cm"))
        #expect(Self.refusal(waist, 5000, unit: "cm") == nil)
    }

    @Test func exponentsInfinitiesAndHexAreNotReadings() throws {
        let kilograms = ResultKind.number(unit: "kg")
        for text in ["1e3", "1E3", "inf", "-infinity", "nan", "0x1p3", "0x48", "", ".", "-", "7 2"] {
            #expect(throws: ResultError.unreadable(text, expected: kilograms), "\(text)") { try kilograms.values(from: [text]) }
        }
        #expect(try kilograms.values(from: ["72.5", "-3", "+70", ".5", "72."]).map(\.value) == [
            .decimal(72.5), .integer(-3), .integer(70), .decimal(0.5), .decimal(72),
        ])
        // An activity that asks for no particular result keeps "1e3" as the text it is.
        #expect(ResultKind.untypedValues(from: ["1e3", "nan", "2", "0.5"]).map(\.value) == [
            .text("1e3"), .text("nan"), .integer(2), .decimal(0.5),
        ])
    }

    @Test func aBloodPressureIsSystolicOverDiastolic() throws {
        let pressure = try Self.assessment("pressure", .number(unit: "mmHg", components: ["systolic", "diastolic"]))
        #expect(Self.refusal(pressure, 80, 120, unit: "mmHg") == .diastolicNotBelowSystolic(systolic: 80, diastolic: 120))
        #expect(Self.refusal(pressure, 100, 100, unit: "mmHg") == .diastolicNotBelowSystolic(systolic: 100, diastolic: 100))
        #expect(Self.refusal(pressure, 120, 80, unit: "mmHg") == nil)
        // Values that name their component are read by it, whatever their order.
        #expect(Self.refusal(pressure, [
            OutcomeValue(.integer(80), unit: "mmHg", kind: "diastolic"), OutcomeValue(.integer(120), unit: "mmHg", kind: "systolic"),
        ]) == nil)
        let typed = try #require(pressure.result).values(from: ["80", "120"])
        #expect(Self.refusal(pressure, typed) == .diastolicNotBelowSystolic(systolic: 80, diastolic: 120))
        #expect(ResultError.diastolicNotBelowSystolic(systolic: 80, diastolic: 120).description
            == "the diastolic 120 is not below the systolic 80")
    }

    @Test func aValueInAnotherUnitIsRefused() throws {
        let weight = try Self.assessment("weight", .number(unit: "kg"))
        #expect(Self.refusal(weight, 72.5, unit: "lb") == .wrongUnit(given: "lb", expected: "kg"))
        #expect(Self.refusal(weight, 72.5, unit: "mmol/L") == .wrongUnit(given: "mmol/L", expected: "kg"))
        #expect(ResultError.wrongUnit(given: "lb", expected: "kg").description == "the result is in kg, not lb")
        // One unit however it is written.
        #expect(Self.refusal(weight, 72.5, unit: "KG") == nil)
        let pressure = try Self.assessment("pressure", .number(unit: "mmHg", components: ["systolic", "diastolic"]))
        #expect(Self.refusal(pressure, 120, 80, unit: "mm[Hg]") == nil)
        let doses = try Self.assessment("doses", .number(unit: "tablet"))
        #expect(Self.refusal(doses, 2, unit: "tablets") == .wrongUnit(given: "tablets", expected: "tablet"))
    }

    @Test func typedValuesInAUnitThatConvertsAreConvertedIntoTheResultsUnit() throws {
        let kilograms = ResultKind.number(unit: "kg")
        #expect(try kilograms.values(from: ["72.5"], unit: "lb") == [OutcomeValue(.decimal(32.89), unit: "kg")])
        #expect(try kilograms.values(from: ["160"], unit: "lbs") == [OutcomeValue(.decimal(72.57), unit: "kg")])
        #expect(try ResultKind.number(unit: "°C").values(from: ["98.6"], unit: "°F") == [OutcomeValue(.decimal(37), unit: "°C")])
        #expect(try ResultKind.number(unit: "mmol/L").values(from: ["99"], unit: "mg/dL") == [OutcomeValue(.decimal(5.5), unit: "mmol/L")])
        #expect(try ResultKind.number(unit: "mg/dL").values(from: ["5.5"], unit: "mmol/L") == [OutcomeValue(.decimal(99), unit: "mg/dL")])
        // The same unit written otherwise is the result's, as the plan writes it.
        let pressure = ResultKind.number(unit: "mmHg", components: ["systolic", "diastolic"])
        #expect(try pressure.values(from: ["120", "80"], unit: "mm[Hg]") == [
            OutcomeValue(.integer(120), unit: "mmHg", kind: "systolic"), OutcomeValue(.integer(80), unit: "mmHg", kind: "diastolic"),
        ])
        // A unit that does not convert is refused, never kept beside the result's.
        #expect(throws: ResultError.wrongUnit(given: "mmol/L", expected: "kg")) { try kilograms.values(from: ["5"], unit: "mmol/L") }
        #expect(throws: ResultError.wrongUnit(given: "stone", expected: "kg")) { try kilograms.values(from: ["11"], unit: "stone") }
        // A conversion is judged as the converted value: 1600 lb is 725.75 kg.
        let weight = try Self.assessment("weight", kilograms)
        #expect(Self.refusal(weight, try kilograms.values(from: ["1600"], unit: "lb")) == .implausible(725.75, 0.25...650))
    }

    @Test func anInterventionTakesNoValue() throws {
        let dose = try Activity(identifier: "dose", kind: .intervention, title: "Dose", schedule: .daily(occurrences: 1, start: Self.start))
        #expect(Self.refusal(dose, []) == nil)
        #expect(Self.refusal(dose, [OutcomeValue(.integer(5))]) == .noValueAsked(found: 1))
        #expect(Self.refusal(dose, ResultKind.untypedValues(from: ["5", "done"])) == .noValueAsked(found: 2))
        #expect(ResultError.noValueAsked(found: 1).description == "this activity asks for no value, found 1")
        // A medication's dose may carry what was taken (exported as the administration's dose).
        var ibuprofen = dose
        ibuprofen.medication = MedicationLink(request: "MedicationRequest/ibu-prn")
        #expect(Self.refusal(ibuprofen, [OutcomeValue(.integer(2), unit: "tablet")]) == nil)
        var tagged = dose
        tagged.tags = ["medication"]
        #expect(Self.refusal(tagged, [OutcomeValue(.decimal(0.5), unit: "tablet")]) == nil)
        // An assessment that asks for no particular result takes what it is given.
        let note = try Activity(identifier: "note", kind: .assessment, title: "Note", schedule: .daily(occurrences: 1, start: Self.start))
        #expect(Self.refusal(note, [OutcomeValue(.text("fine"))]) == nil)
    }

    /// Samples and results are judged by the one table: a sample no assessment could take is
    /// refused as a sample (1000 mg/dL is 55.5 mmol/L).
    @Test func samplesAndResultsShareOneRange() {
        func sample(_ value: Double, _ unit: String) -> MeasurementSample {
            MeasurementSample(id: "g", type: .glucose, value: value, unit: unit, start: Date(timeIntervalSince1970: 1_795_500_000), sourceID: "s")
        }
        #expect(throws: MeasurementError.implausible(.glucose, 1000, unit: "mg/dL", 10...990)) { try sample(1000, "mg/dL").validate() }
        #expect(throws: Never.self) { try sample(990, "mg/dL").validate() }
        #expect(QuantityUnit("mmHg")?.code == "mm[Hg]" && QuantityUnit("lbs")?.code == "[lb_av]" && QuantityUnit("°F")?.code == "[degF]")
        #expect(QuantityUnit("furlong") == nil)
        #expect(MeasurementType.glucose.units == ["mmol/L", "mg/dL"] && MeasurementType.bloodPressure.units == ["mm[Hg]"])
    }
}
