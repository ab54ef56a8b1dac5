/// An R4 `MedicationAdministration`: one dose given, or not given, as CareSync exports it.
public struct MedicationAdministration: Sendable, Hashable, Codable {
    public var resourceType = "MedicationAdministration"
    public var identifier: [Identifier]
    /// `completed`, `not-done`, or `entered-in-error` for an outcome later replaced.
    public var status: String
    public var statusReason: [CodeableConcept]?
    public var medicationCodeableConcept: CodeableConcept
    public var subject: Reference
    public var effectiveDateTime: String?
    /// Instead of `effectiveDateTime` when only the day is known.
    public var effectivePeriod: Period?
    public var performer: [Performer]?
    /// The MedicationRequest; an order of another FHIR version is named by identifier.
    public var request: Reference?
    public var dosage: Dosage?

    /// Who (here: which device) recorded the administration.
    public struct Performer: Sendable, Hashable, Codable {
        public var actor: Reference
    }

    /// How much was given.
    public struct Dosage: Sendable, Hashable, Codable {
        public var text: String?
        public var dose: Quantity?
    }
}

/// A DSTU2 `MedicationAdministration`, the shape Medbrain's servers took: `patient`,
/// `prescription`, `wasNotGiven` with `reasonNotGiven`, and `effectiveTime[x]`. DSTU2 has
/// no recording device, so it is named in `note`.
public struct MedicationAdministrationDSTU2: Sendable, Hashable, Codable {
    public var resourceType = "MedicationAdministration"
    public var identifier: [Identifier]
    /// `completed`, or `entered-in-error` for an outcome later replaced.
    public var status: String
    public var patient: Reference
    /// The MedicationOrder; an order of another FHIR version is named by `display` only, as
    /// DSTU2's Reference has nothing but `reference` and `display`.
    public var prescription: Reference?
    public var wasNotGiven: Bool
    public var reasonNotGiven: [CodeableConcept]?
    public var effectiveTimeDateTime: String?
    public var effectiveTimePeriod: Period?
    public var medicationCodeableConcept: CodeableConcept
    public var note: String?
    public var dosage: Dosage?

    /// DSTU2 calls the dose `quantity`.
    public struct Dosage: Sendable, Hashable, Codable {
        public var text: String?
        public var quantity: Quantity?
    }
}
