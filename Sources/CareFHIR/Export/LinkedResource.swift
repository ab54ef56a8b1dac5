import Foundation

/// A resource an administration names (its order, its patient) as the store keeps it, written
/// in each FHIR version's terms.
///
/// The store keeps the reference an import read: literal (`MedicationOrder/o1`, an absolute
/// URL) or, for an order without an id, conditional (`MedicationRequest?identifier=S|V`).
public struct LinkedResource: Sendable, Hashable {
    /// The reference as stored.
    public var stored: String
    /// The resource type it names, such as `MedicationOrder`; `nil` for `urn:…` or `#…`.
    public var type: String?
    /// The literal reference; `nil` when stored by identifier.
    public var literal: String?
    /// A business identifier: the one a conditional reference names, else the one given.
    public var identifier: Identifier?
    /// What a person reads, such as the ordered medication's name.
    public var display: String?

    /// Reads `stored`; `identifier` names the resource where `stored` is literal.
    public init(_ stored: String, identifier: Identifier? = nil, display: String? = nil) {
        self.stored = stored
        self.display = display
        if let query = stored.range(of: "?identifier=") {
            let token = stored[query.upperBound...]
            let bar = token.firstIndex(of: "|")
            type = String(stored[..<query.lowerBound])
            self.identifier = Identifier(
                system: bar.map { String(token[..<$0]) }, value: String(bar.map { token[token.index(after: $0)...] } ?? token))
        } else {
            type = Self.type(ofLiteral: stored)
            literal = stored
            self.identifier = identifier
        }
    }

    /// This resource as a Reference in `version`, from an element whose targets are `targets`.
    ///
    /// A literal reference to one of `targets` (or an untyped one) stays as it is. Otherwise
    /// R4 names the resource by `identifier`, with `type` only if that is one of `targets`: the
    /// other version's order is not claimed to be an R4 MedicationRequest. DSTU2's Reference
    /// has only `reference` and `display`, so there the identifier goes into `display`'s text.
    public func reference(to targets: Set<String>, in version: DoseAdministration.Version) -> Reference {
        let linkable = type.map(targets.contains) ?? true
        if let literal, linkable { return Reference(reference: literal, display: display) }
        switch version {
        case .r4: return Reference(type: linkable ? type : nil, identifier: identifier, display: display)
        case .dstu2:
            let named = identifier.map { "(identifier \([$0.system, $0.value].compactMap { $0 }.joined(separator: "|")))" }
            return Reference(display: [display, named ?? stored].compactMap { $0 }.joined(separator: " "))
        }
    }

    /// `Patient` of `Patient/p1` and of `https://example.org/fhir/Patient/p1/_history/2`.
    private static func type(ofLiteral text: String) -> String? {
        var segments = text.split(separator: "/").map(String.init)
        if text.contains("://") { segments.removeFirst(min(2, segments.count)) }
        if segments.count >= 4, segments[segments.count - 2] == "_history" { segments.removeLast(2) }
        guard segments.count >= 2 else { return nil }
        let type = segments[segments.count - 2]
        return type.first?.isUppercase == true && type.allSatisfy { $0.isASCII && $0.isLetter } ? type : nil
    }
}
