import Foundation

/// A FHIR transaction `Bundle` of administrations (R4's or DSTU2's shape, which agree here).
///
/// A new outcome is a conditional create (`POST` with `ifNoneExist: identifier=…`), so a
/// server that has it already creates nothing; a replaced outcome is a conditional update
/// (`PUT MedicationAdministration?identifier=…`) to `entered-in-error`.
public struct TransactionBundle<Resource: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var resourceType = "Bundle"
    public var type = "transaction"
    public var entry: [Entry]

    public struct Entry: Codable, Sendable, Hashable {
        public var resource: Resource
        public var request: Request
    }

    public struct Request: Codable, Sendable, Hashable {
        public var method: String
        public var url: String
        public var ifNoneExist: String?
    }

    public init(entries: [Entry]) {
        entry = entries
    }

    /// The entries of `doses`, each resource made by `resource`.
    public init(_ doses: [DoseAdministration], resource: (DoseAdministration) -> Resource) {
        entry = doses.map { dose in
            let search = ExportIdentifiers.search(dose.identifier)
            let request = dose.status == .replaced
                ? Request(method: "PUT", url: "MedicationAdministration?" + search)
                : Request(method: "POST", url: "MedicationAdministration", ifNoneExist: search)
            return Entry(resource: resource(dose), request: request)
        }
    }
}

extension DoseAdministration {
    /// The FHIR versions an export can take.
    public enum Version: String, Sendable, CaseIterable {
        case r4, dstu2
    }

    /// `doses` as a transaction Bundle in `version`'s shape: JSON with sorted keys.
    public static func bundle(_ doses: [DoseAdministration], version: Version) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        switch version {
        case .r4: return try encoder.encode(TransactionBundle(doses, resource: \.r4))
        case .dstu2: return try encoder.encode(TransactionBundle(doses, resource: \.dstu2))
        }
    }
}
