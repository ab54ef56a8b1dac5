import CarePlan
import Foundation

/// How a measurement type is coded in an R4 Observation: LOINC code, category, UCUM unit
/// and the profile it follows (R4's vital-signs profiles for heart rate and blood pressure).
struct VitalSign: Sendable {
    var code: Coding
    /// `vital-signs`, or `activity` for steps.
    var category: String
    /// The HL7 profile the Observation follows, if one fits.
    var profile: String?

    static let loinc = "http://loinc.org"
    static let ucum = "http://unitsofmeasure.org"
    static let categories = "http://terminology.hl7.org/CodeSystem/observation-category"
    static let systolic = Coding(system: loinc, code: "8480-6", display: "Systolic blood pressure")
    static let diastolic = Coding(system: loinc, code: "8462-4", display: "Diastolic blood pressure")

    /// The coding of `measurement`: glucose by its unit (mass or moles per volume), steps by
    /// whether they count a whole day.
    init(_ measurement: MeasurementSample, wholeDay: Bool) {
        let profiles = "http://hl7.org/fhir/StructureDefinition/"
        switch measurement.type {
        case .heartRate:
            self.init(code: Coding(system: Self.loinc, code: "8867-4", display: "Heart rate"), category: "vital-signs", profile: profiles + "heartrate")
        case .bloodPressure:
            self.init(
                code: Coding(system: Self.loinc, code: "85354-9", display: "Blood pressure panel with all children optional"),
                category: "vital-signs", profile: profiles + "bp")
        case .steps where wholeDay:
            self.init(code: Coding(system: Self.loinc, code: "41950-7", display: "Number of steps in 24 hour Measured"), category: "activity")
        case .steps:
            self.init(code: Coding(system: Self.loinc, code: "55423-8", display: "Number of steps in unspecified time Pedometer"), category: "activity")
        case .glucose where measurement.unit == "mg/dL":
            self.init(code: Coding(system: Self.loinc, code: "2339-0", display: "Glucose [Mass/volume] in Blood"), category: "vital-signs")
        case .glucose:
            self.init(code: Coding(system: Self.loinc, code: "15074-8", display: "Glucose [Moles/volume] in Blood"), category: "vital-signs")
        }
    }

    private init(code: Coding, category: String, profile: String? = nil) {
        self.code = code
        self.category = category
        self.profile = profile
    }

    var categoryConcept: CodeableConcept {
        let display = category == "activity" ? "Activity" : "Vital Signs"
        return CodeableConcept(coding: [Coding(system: Self.categories, code: category, display: display)], text: display)
    }

    /// `value` in UCUM `code`, as a person reads the unit (`mmHg`, `beats/minute`).
    static func quantity(_ value: Double, code: String) -> Quantity {
        let readable = ["/min": "beats/minute", "mm[Hg]": "mmHg", "{steps}": "steps"][code] ?? code
        return Quantity(value: Decimal(string: "\(value)"), unit: readable, system: ucum, code: code)
    }
}
