/// An order, or a resource one needs, that an import did not take, with where and why:
/// the rest of the input is imported all the same.
public struct ImportRefusal: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Malformed, or a value CareSync cannot interpret: nothing changes for this order
        /// (activities an earlier import made from it stay as they were). Orders that can be
        /// read but not scheduled as written are not refused: they are held for review
        /// (``ReviewHold``).
        case invalid
    }

    public var kind: Kind
    /// The order's reference, when it could be read (`MedicationRequest/rx1`).
    public var reference: String?
    /// Where in the input, such as `Bundle.entry[3].resource.dosageInstruction[0].timing`.
    public var path: String
    public var reason: String
    /// The file or URL the input was read from.
    public var document: String?
    /// The error behind an `invalid` refusal (not part of its JSON).
    public var error: FHIRError?

    enum CodingKeys: String, CodingKey { case kind, reference, path, reason, document }

    public init(_ kind: Kind, reference: String? = nil, at path: String, _ reason: String, document: String? = nil) {
        self.kind = kind
        self.reference = reference
        self.path = path
        self.reason = reason
        self.document = document
    }

    /// The refusal of what `error` rejected.
    init(_ error: FHIRError, reference: String? = nil, document: String?) {
        self.init(.invalid, reference: reference, at: error.path ?? "$", error.reason, document: document)
        self.error = error
    }

    public var description: String {
        [document, path].compactMap { $0 }.joined(separator: ": ") + ": " + reason
    }
}
