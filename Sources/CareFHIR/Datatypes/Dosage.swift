/// How a medication is taken (R4 `Dosage`): the prescriber's text, timing, as-needed,
/// dose and maximum. DSTU2's shape is read by ``DSTU2Dosage`` and converted to this one.
public struct Dosage: Sendable, Hashable, Codable {
    public var sequence: Int?
    /// Free text from the prescriber: shown beside the generated instructions, never instead.
    public var text: String?
    public var additionalInstruction: [CodeableConcept]?
    public var patientInstruction: String?
    public var timing: Timing?
    public var asNeededBoolean: Bool?
    public var asNeededCodeableConcept: CodeableConcept?
    public var route: CodeableConcept?
    public var doseAndRate: [DoseAndRate]?
    public var maxDosePerPeriod: Ratio?

    public init(
        sequence: Int? = nil, text: String? = nil, additionalInstruction: [CodeableConcept]? = nil,
        patientInstruction: String? = nil, timing: Timing? = nil, asNeededBoolean: Bool? = nil,
        asNeededCodeableConcept: CodeableConcept? = nil, route: CodeableConcept? = nil,
        doseAndRate: [DoseAndRate]? = nil, maxDosePerPeriod: Ratio? = nil
    ) {
        self.sequence = sequence
        self.text = text
        self.additionalInstruction = additionalInstruction
        self.patientInstruction = patientInstruction
        self.timing = timing
        self.asNeededBoolean = asNeededBoolean
        self.asNeededCodeableConcept = asNeededCodeableConcept
        self.route = route
        self.doseAndRate = doseAndRate
        self.maxDosePerPeriod = maxDosePerPeriod
    }

    /// The amount per administration: a quantity or a range.
    public struct DoseAndRate: Sendable, Hashable, Codable {
        public var type: CodeableConcept?
        public var doseRange: Range?
        public var doseQuantity: Quantity?

        public init(type: CodeableConcept? = nil, doseRange: Range? = nil, doseQuantity: Quantity? = nil) {
            self.type = type
            self.doseRange = doseRange
            self.doseQuantity = doseQuantity
        }
    }

    /// Whether the dose is taken only when needed (`asNeededBoolean` or a reason).
    public var isAsNeeded: Bool { asNeededBoolean == true || asNeededCodeableConcept != nil }
}

/// A DSTU2 `MedicationOrder.dosageInstruction`.
public struct DSTU2Dosage: Sendable, Hashable, Decodable {
    public var text: String?
    public var additionalInstructions: CodeableConcept?
    public var timing: DSTU2Timing?
    public var asNeededBoolean: Bool?
    public var asNeededCodeableConcept: CodeableConcept?
    public var route: CodeableConcept?
    public var doseRange: Range?
    public var doseQuantity: Quantity?
    public var maxDosePerPeriod: Ratio?

    /// The same instruction in R4's shape.
    public var r4: Dosage {
        let dose = doseQuantity == nil && doseRange == nil
            ? nil : [Dosage.DoseAndRate(doseRange: doseRange, doseQuantity: doseQuantity)]
        return Dosage(
            text: text, additionalInstruction: additionalInstructions.map { [$0] }, timing: timing?.r4,
            asNeededBoolean: asNeededBoolean, asNeededCodeableConcept: asNeededCodeableConcept, route: route,
            doseAndRate: dose, maxDosePerPeriod: maxDosePerPeriod)
    }
}
