/// An order, or a resource one needs, that an import did not take, with where and why:
/// the rest of the input is imported all the same.
public struct ImportRefusal: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Malformed, or a value CareSync cannot interpret: nothing changes for this order
        /// (activities an earlier import made from it stay as they were).
        case invalid
        /// An order CareSync must not schedule as it reads it, such as one with a
        /// `modifierExtension` it does not understand: held for review, not scheduled, and
        /// activities an earlier import made from it end.
        case held
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

    /// The refusal of an order held for its modifier extensions (it has at least one).
    init(holding order: ImportedOrder) {
        let urls = order.modifierExtensions.map { $0.url ?? "without a url" }.joined(separator: ", ")
        self.init(
            .held, reference: order.reference, at: order.modifierExtensions[0].path,
            "a modifierExtension (\(urls)) changes what the order means and CareSync does not understand it: not scheduled",
            document: order.document)
    }

    public var description: String {
        [document, path].compactMap { $0 }.joined(separator: ": ") + ": " + (kind == .held ? "held for review: " : "") + reason
    }
}
