import Foundation
import NodeIdentity
import SyncNode

/// Whom a household device's node follows, as people name them: the patient's name from
/// the context, else the plan's title, else the primary's id.
public struct PersonLabel: Sendable {
    /// The primary's fingerprint.
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// The indices of the labels `wanted` names: by name (case ignored), else by the
    /// beginning of the id (dashes and case ignored), else by the beginning of the name.
    static func matching(_ wanted: String, among labels: [PersonLabel]) -> [Int] {
        let name = wanted.lowercased()
        let hex = name.filter { $0 != "-" }
        let rules: [(PersonLabel) -> Bool] = [
            { $0.name.lowercased() == name },
            { hex.count >= 4 && $0.id.hasPrefix(hex) },
            { $0.name.lowercased().hasPrefix(name) },
        ]
        for rule in rules {
            let found = labels.indices.filter { rule(labels[$0]) }
            if !found.isEmpty { return found }
        }
        return []
    }
}

extension CompanionNode {
    /// Whom this node follows.
    public var person: PersonLabel {
        let id = knownPrimaryID ?? ""
        let name = [context?.patientName, context?.planTitle].compactMap { $0 }.first { !$0.isEmpty }
        return PersonLabel(id: id, name: name ?? String(NodeIdentity.display(id).prefix(9)))
    }
}
