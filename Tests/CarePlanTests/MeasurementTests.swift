import CarePlan
import Foundation
import Testing

/// A measurement is refused, with its reason, when no body or counter could give it.
struct MeasurementTests {
    static let at = Date(timeIntervalSince1970: 1_795_500_000)

    static func sample(
        _ type: MeasurementType, _ value: Double, _ diastolic: Double? = nil, unit: String? = nil, end: Date? = nil
    ) -> MeasurementSample {
        MeasurementSample(id: "m", type: type, value: value, diastolic: diastolic, unit: unit ?? type.units[0], start: at, end: end, sourceID: "s")
    }

    static func refusal(_ sample: MeasurementSample) -> MeasurementError? {
        do throws(MeasurementError) {
            try sample.validate()
            return nil
        } catch {
            return error
        }
    }

    @Test func plausibleSamplesPass() {
        #expect(Self.refusal(Self.sample(.heartRate, 72)) == nil)
        #expect(Self.refusal(Self.sample(.steps, 0, end: Self.at.addingTimeInterval(3600))) == nil)
        #expect(Self.refusal(Self.sample(.bloodPressure, 120, 80)) == nil)
        #expect(Self.refusal(Self.sample(.glucose, 5.6)) == nil)
        #expect(Self.refusal(Self.sample(.glucose, 101, unit: "mg/dL")) == nil)
    }

    @Test func implausibleSamplesAreRefusedWithTheirReason() {
        #expect(Self.refusal(Self.sample(.heartRate, 0))?.description == "heart-rate 0 /min is not plausible: from 20 to 300")
        #expect(Self.refusal(Self.sample(.heartRate, 400))?.description == "heart-rate 400 /min is not plausible: from 20 to 300")
        #expect(Self.refusal(Self.sample(.heartRate, .nan)) != nil)
        #expect(Self.refusal(Self.sample(.steps, -5))?.description == "steps -5 {steps} is not plausible: from 0 to 100000")
        #expect(Self.refusal(Self.sample(.bloodPressure, 80, 120)) == .diastolicNotBelowSystolic(systolic: 80, diastolic: 120))
        #expect(Self.refusal(Self.sample(.bloodPressure, 120)) == .noDiastolic)
        #expect(Self.refusal(Self.sample(.heartRate, 72, 50)) == .diastolicWithout(.heartRate))
        #expect(Self.refusal(Self.sample(.glucose, 5.6, unit: "mmHg"))?.description == "glucose does not come in \"mmHg\": mmol/L or mg/dL")
        #expect(Self.refusal(Self.sample(.glucose, 101)) != nil)  // 101 mmol/L: mg/dL meant
        #expect(Self.refusal(Self.sample(.steps, 10, end: Self.at.addingTimeInterval(-1))) == .endsBeforeStart)
        var unnamed = Self.sample(.heartRate, 72)
        unnamed.id = ""
        #expect(Self.refusal(unnamed) == .noID)
    }

    @Test func unitsAsPeopleWriteThemBecomeUCUM() {
        #expect(MeasurementType.heartRate.unit("bpm") == "/min")
        #expect(MeasurementType.bloodPressure.unit("mmHg") == "mm[Hg]")
        #expect(MeasurementType.glucose.unit("mg/dl") == "mg/dL")
        #expect(MeasurementType.glucose.unit(nil) == "mmol/L")
        #expect(MeasurementType.steps.unit("bpm") == nil)
        #expect(MeasurementType.heartRate.unit("mg/dL") == nil)
    }
}
