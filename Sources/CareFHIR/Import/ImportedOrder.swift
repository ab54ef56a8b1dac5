import Foundation

/// One medication order as read for import, R4 `MedicationRequest` and DSTU2
/// `MedicationOrder` alike, with its medication resolved.
public struct ImportedOrder: Sendable, Hashable {
    /// `MedicationRequest/abc`, or a conditional reference by identifier for orders without an
    /// id: their business identifier's, else CareSync's key from their content
    /// (`MedicationOrder?identifier=urn:caresync:order-content|order-…`).
    public var reference: String
    /// The order's business identifier: its official one, else its first with a value.
    public var identifier: Identifier?
    /// The order's business identifier (official first) or, lacking one, its id, else a key
    /// from its content: what the activity's identifier is made from.
    public var key: String
    public var status: String
    /// The medication's concept: the order's own, or the code of the Medication it references.
    public var medication: CodeableConcept?
    /// What a person reads: coding display, then text, then the reference's display.
    public var medicationName: String?
    /// The patient, such as `Patient/p1`.
    public var subject: String?
    public var authoredOn: FHIRDateTime?
    /// The dosage instructions in R4's shape.
    public var dosages: [Dosage]
    /// The resource's JSON as imported (keys sorted).
    public var payload: Data
    /// Where the resource sits in the input, for messages.
    public var path: String
    /// The file or URL the order was read from, for messages.
    public var document: String?
    /// The `modifierExtension`s in the order or its medication: an order with any is held
    /// for review, never scheduled as if they were absent.
    public var modifierExtensions: [ModifierExtension] = []

    /// The identifier system of keys made from an order's content, for orders without id or identifier.
    public static let contentKeySystem = "urn:caresync:order-content"
}

extension ImportedOrder {
    init(_ request: MedicationRequest, payload: Data, path: String, medications: [String: Medication],
         contentKey: String) throws(FHIRError) {
        try self.init(
            type: "MedicationRequest", id: request.id, identifiers: request.identifier ?? [], status: request.status,
            concept: request.medicationCodeableConcept, medicationReference: request.medicationReference,
            contained: request.contained ?? [], subject: request.subject, authoredOn: request.authoredOn,
            dosages: request.dosageInstruction ?? [], payload: payload, path: path, medications: medications,
            contentKey: contentKey)
    }

    init(_ order: MedicationOrder, payload: Data, path: String, medications: [String: Medication],
         contentKey: String) throws(FHIRError) {
        guard let status = order.status else { throw .invalid(path: path + ".status", "required, but missing") }
        try self.init(
            type: "MedicationOrder", id: order.id, identifiers: order.identifier ?? [], status: status,
            concept: order.medicationCodeableConcept, medicationReference: order.medicationReference,
            contained: order.contained ?? [], subject: order.patient, authoredOn: order.dateWritten,
            dosages: (order.dosageInstruction ?? []).map(\.r4), payload: payload, path: path, medications: medications,
            contentKey: contentKey)
    }

    private init(
        type: String, id: String?, identifiers: [Identifier], status: String, concept: CodeableConcept?,
        medicationReference: Reference?, contained: [ContainedResource], subject: Reference?, authoredOn: String?,
        dosages: [Dosage], payload: Data, path: String, medications: [String: Medication], contentKey: String
    ) throws(FHIRError) {
        let identifier = identifiers.first { $0.use == "official" && $0.value != nil } ?? identifiers.first { $0.value != nil }
        if let id {
            reference = "\(type)/\(id)"
        } else if let identifier, let value = identifier.value {
            reference = "\(type)?identifier=" + [identifier.system, value].compactMap { $0 }.joined(separator: "|")
        } else {
            reference = "\(type)?identifier=\(Self.contentKeySystem)|\(contentKey)"
        }
        key = identifier?.value ?? id ?? contentKey
        self.identifier = identifier
        self.status = status
        let referenced = medicationReference?.reference.flatMap { reference in
            reference.hasPrefix("#")
                ? contained.lazy.compactMap { if case .medication(let m) = $0, "#" + (m.id ?? "") == reference { m } else { nil } }.first
                : medications[reference]
        }
        medication = concept ?? referenced?.code
        medicationName = medication?.displayName ?? medicationReference?.display
        self.subject = subject?.reference
        if let authoredOn {
            guard let parsed = FHIRDateTime(authoredOn) else {
                throw .invalid(path: path + (type == "MedicationOrder" ? ".dateWritten" : ".authoredOn"),
                               "expected a FHIR dateTime, found \"\(authoredOn)\"")
            }
            self.authoredOn = parsed
        }
        self.dosages = dosages
        self.payload = payload
        self.path = path
    }
}
