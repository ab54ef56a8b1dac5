/// How a medication is taken (R4 `Dosage`): the prescriber's text, timing, as-needed,
/// site, route, method, dose, rate and maxima. DSTU2's shape is read by ``DSTU2Dosage``
/// and converted to this one.
public struct Dosage: Sendable, Hashable, Codable {
    /// Dosages with the same sequence apply together; a higher one follows a lower one.
    public var sequence: Int?
    /// Free text from the prescriber: shown beside the generated instructions, never instead.
    public var text: String?
    /// Supplemental instructions or warnings, such as "with or after food".
    public var additionalInstruction: [CodeableConcept]?
    /// Instructions in terms the patient understands, shown after the generated sentence.
    public var patientInstruction: String?
    public var timing: Timing?
    public var asNeededBoolean: Bool?
    public var asNeededCodeableConcept: CodeableConcept?
    /// Where on the body it is given, such as the left upper arm.
    public var site: CodeableConcept?
    public var route: CodeableConcept?
    /// How it is given, such as "swallow" or "inject".
    public var method: CodeableConcept?
    public var doseAndRate: [DoseAndRate]?
    public var maxDosePerPeriod: Ratio?
    public var maxDosePerAdministration: Quantity?
    public var maxDosePerLifetime: Quantity?

    public init(
        sequence: Int? = nil, text: String? = nil, additionalInstruction: [CodeableConcept]? = nil,
        patientInstruction: String? = nil, timing: Timing? = nil, asNeededBoolean: Bool? = nil,
        asNeededCodeableConcept: CodeableConcept? = nil, site: CodeableConcept? = nil, route: CodeableConcept? = nil,
        method: CodeableConcept? = nil, doseAndRate: [DoseAndRate]? = nil, maxDosePerPeriod: Ratio? = nil,
        maxDosePerAdministration: Quantity? = nil, maxDosePerLifetime: Quantity? = nil
    ) {
        self.sequence = sequence
        self.text = text
        self.additionalInstruction = additionalInstruction
        self.patientInstruction = patientInstruction
        self.timing = timing
        self.asNeededBoolean = asNeededBoolean
        self.asNeededCodeableConcept = asNeededCodeableConcept
        self.site = site
        self.route = route
        self.method = method
        self.doseAndRate = doseAndRate
        self.maxDosePerPeriod = maxDosePerPeriod
        self.maxDosePerAdministration = maxDosePerAdministration
        self.maxDosePerLifetime = maxDosePerLifetime
    }

    /// The amount per administration (a quantity or a range) and the rate at which it is
    /// given (a ratio, a range or a quantity such as 50 mL/h).
    public struct DoseAndRate: Sendable, Hashable, Codable {
        public var type: CodeableConcept?
        public var doseRange: Range?
        public var doseQuantity: Quantity?
        public var rateRatio: Ratio?
        public var rateRange: Range?
        public var rateQuantity: Quantity?

        public init(
            type: CodeableConcept? = nil, doseRange: Range? = nil, doseQuantity: Quantity? = nil,
            rateRatio: Ratio? = nil, rateRange: Range? = nil, rateQuantity: Quantity? = nil
        ) {
            self.type = type
            self.doseRange = doseRange
            self.doseQuantity = doseQuantity
            self.rateRatio = rateRatio
            self.rateRange = rateRange
            self.rateQuantity = rateQuantity
        }
    }

    /// Whether the dose is taken only when needed (`asNeededBoolean` or a reason).
    public var isAsNeeded: Bool { asNeededBoolean == true || asNeededCodeableConcept != nil }
}

/// A DSTU2 `MedicationOrder.dosageInstruction`.
///
/// `additionalInstructions` is a single CodeableConcept in DSTU2; a list (as some
/// generators write it) is read too, since it only adds words to the instructions.
public struct DSTU2Dosage: Sendable, Hashable, Decodable {
    public var text: String?
    public var additionalInstructions: [CodeableConcept]?
    public var timing: DSTU2Timing?
    public var asNeededBoolean: Bool?
    public var asNeededCodeableConcept: CodeableConcept?
    public var siteCodeableConcept: CodeableConcept?
    public var route: CodeableConcept?
    public var method: CodeableConcept?
    public var doseRange: Range?
    public var doseQuantity: Quantity?
    public var rateRatio: Ratio?
    public var rateRange: Range?
    public var maxDosePerPeriod: Ratio?

    enum CodingKeys: String, CodingKey {
        case text, additionalInstructions, timing, asNeededBoolean, asNeededCodeableConcept, siteCodeableConcept
        case route, method, doseRange, doseQuantity, rateRatio, rateRange, maxDosePerPeriod
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        if let list = try? c.decodeIfPresent([CodeableConcept].self, forKey: .additionalInstructions) {
            additionalInstructions = list
        } else {
            additionalInstructions = try c.decodeIfPresent(CodeableConcept.self, forKey: .additionalInstructions).map { [$0] }
        }
        timing = try c.decodeIfPresent(DSTU2Timing.self, forKey: .timing)
        asNeededBoolean = try c.decodeIfPresent(Bool.self, forKey: .asNeededBoolean)
        asNeededCodeableConcept = try c.decodeIfPresent(CodeableConcept.self, forKey: .asNeededCodeableConcept)
        siteCodeableConcept = try c.decodeIfPresent(CodeableConcept.self, forKey: .siteCodeableConcept)
        route = try c.decodeIfPresent(CodeableConcept.self, forKey: .route)
        method = try c.decodeIfPresent(CodeableConcept.self, forKey: .method)
        doseRange = try c.decodeIfPresent(Range.self, forKey: .doseRange)
        doseQuantity = try c.decodeIfPresent(Quantity.self, forKey: .doseQuantity)
        rateRatio = try c.decodeIfPresent(Ratio.self, forKey: .rateRatio)
        rateRange = try c.decodeIfPresent(Range.self, forKey: .rateRange)
        maxDosePerPeriod = try c.decodeIfPresent(Ratio.self, forKey: .maxDosePerPeriod)
    }

    /// The same instruction in R4's shape.
    public var r4: Dosage {
        let given = doseQuantity != nil || doseRange != nil || rateRatio != nil || rateRange != nil
        let dose = given ? [Dosage.DoseAndRate(doseRange: doseRange, doseQuantity: doseQuantity, rateRatio: rateRatio, rateRange: rateRange)] : nil
        return Dosage(
            text: text, additionalInstruction: additionalInstructions, timing: timing?.r4,
            asNeededBoolean: asNeededBoolean, asNeededCodeableConcept: asNeededCodeableConcept, site: siteCodeableConcept,
            route: route, method: method, doseAndRate: dose, maxDosePerPeriod: maxDosePerPeriod)
    }
}
