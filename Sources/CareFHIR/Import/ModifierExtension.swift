import StrictJSON

/// A `modifierExtension`: an element that changes the meaning of the element holding it.
/// FHIR forbids processing such an element as if it were absent, and CareSync understands
/// none, so an order with one anywhere (its dosage, its medication) is held for review.
public struct ModifierExtension: Sendable, Hashable {
    /// Where it is, such as `Bundle.entry[0].resource.dosageInstruction[0].modifierExtension[0]`.
    public var path: String
    public var url: String?

    /// Every modifier extension in `value`, found at any depth.
    static func find(in value: JSONValue, at path: String) -> [ModifierExtension] {
        switch value {
        case .object(let object):
            return object.sorted { $0.key < $1.key }.flatMap { key, item -> [ModifierExtension] in
                guard key == "modifierExtension" else { return find(in: item, at: "\(path).\(key)") }
                return (item.array ?? [item]).enumerated().map { index, found in
                    ModifierExtension(path: "\(path).modifierExtension[\(index)]", url: found["url"]?.string)
                }
            }
        case .array(let array):
            return array.enumerated().flatMap { index, item in find(in: item, at: "\(path)[\(index)]") }
        default:
            return []
        }
    }
}
