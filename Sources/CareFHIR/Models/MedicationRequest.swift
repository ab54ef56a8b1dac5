/// An R4 `MedicationRequest`: the fields CareSync uses; anything else is ignored.
public struct MedicationRequest: Sendable, Hashable, Codable {
    public var resourceType = "MedicationRequest"
    public var id: String?
    public var identifier: [Identifier]?
    /// `active`, `on-hold`, `cancelled`, `completed`, `entered-in-error`, `stopped`, `draft` or `unknown`.
    public var status: String
    public var intent: String?
    public var medicationCodeableConcept: CodeableConcept?
    public var medicationReference: Reference?
    public var subject: Reference?
    public var authoredOn: String?
    public var dosageInstruction: [Dosage]?
    public var contained: [ContainedResource]?

    public init(
        id: String? = nil, identifier: [Identifier]? = nil, status: String, intent: String? = "order",
        medicationCodeableConcept: CodeableConcept? = nil, medicationReference: Reference? = nil,
        subject: Reference? = nil, authoredOn: String? = nil, dosageInstruction: [Dosage]? = nil,
        contained: [ContainedResource]? = nil
    ) {
        self.id = id
        self.identifier = identifier
        self.status = status
        self.intent = intent
        self.medicationCodeableConcept = medicationCodeableConcept
        self.medicationReference = medicationReference
        self.subject = subject
        self.authoredOn = authoredOn
        self.dosageInstruction = dosageInstruction
        self.contained = contained
    }
}

/// A DSTU2 `MedicationOrder`: the fields CareSync uses; anything else is ignored.
public struct MedicationOrder: Sendable, Hashable, Decodable {
    public var resourceType = "MedicationOrder"
    public var id: String?
    public var identifier: [Identifier]?
    /// `active`, `on-hold`, `completed`, `entered-in-error`, `stopped` or `draft`.
    public var status: String?
    public var patient: Reference?
    public var dateWritten: String?
    public var medicationCodeableConcept: CodeableConcept?
    public var medicationReference: Reference?
    public var dosageInstruction: [DSTU2Dosage]?
    public var contained: [ContainedResource]?
}

/// A medication (R4 and DSTU2 `Medication`): its code names it.
public struct Medication: Sendable, Hashable, Codable {
    public var resourceType = "Medication"
    public var id: String?
    public var code: CodeableConcept?

    public init(id: String? = nil, code: CodeableConcept? = nil) {
        self.id = id
        self.code = code
    }
}

/// A patient: the identity and name an order's subject points at.
public struct Patient: Sendable, Hashable, Codable {
    public var resourceType = "Patient"
    public var id: String?
    public var identifier: [Identifier]?
    public var name: [HumanName]?

    public init(id: String? = nil, identifier: [Identifier]? = nil, name: [HumanName]? = nil) {
        self.id = id
        self.identifier = identifier
        self.name = name
    }

    /// The first name's text, else its given and family names.
    public var displayName: String? {
        guard let name = name?.first else { return nil }
        if let text = name.text, !text.isEmpty { return text }
        let parts = (name.given ?? []) + [name.family].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// A person's name (FHIR `HumanName`; DSTU2's `family` list is read as its first entry).
public struct HumanName: Sendable, Hashable, Codable {
    public var text: String?
    public var family: String?
    public var given: [String]?

    public init(text: String? = nil, family: String? = nil, given: [String]? = nil) {
        self.text = text
        self.family = family
        self.given = given
    }

    enum CodingKeys: String, CodingKey { case text, family, given }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        family = try (try? c.decodeIfPresent([String].self, forKey: .family))?.first
            ?? c.decodeIfPresent(String.self, forKey: .family)
        given = try c.decodeIfPresent([String].self, forKey: .given)
    }
}

/// A resource inside another's `contained`: a Medication is read, anything else only named.
public enum ContainedResource: Sendable, Hashable, Codable {
    case medication(Medication)
    case other(resourceType: String, id: String?)

    enum CodingKeys: String, CodingKey { case resourceType, id }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .resourceType)
        self = type == "Medication"
            ? .medication(try Medication(from: decoder))
            : .other(resourceType: type, id: try c.decodeIfPresent(String.self, forKey: .id))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .medication(let medication): try medication.encode(to: encoder)
        case .other(let type, let id):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .resourceType)
            try c.encodeIfPresent(id, forKey: .id)
        }
    }
}
