import CarePlanStore
import Foundation

/// Part of an order that an import took but does not schedule until a person has reviewed
/// it: the whole order, or one dosage instruction of it. Held parts are kept by the store
/// (``HeldOrder``), listed by `caresync meds` and the care app, and released when an import
/// of the order no longer holds them.
public struct ReviewHold: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, Codable {
        /// A `modifierExtension` CareSync does not understand changes what the order means:
        /// FHIR forbids processing it as if the modifier were absent.
        case modifierExtension
        /// The timing is given as text alone (a `Timing.code` without coding, such as "in the
        /// morning on weekends"): shown, never guessed.
        case timingText
        /// A step of a sequence that follows a step without an end: its start is not given,
        /// and scheduling it beside that step would double the doses.
        case followsOpenStep
    }

    public var reason: Reason
    /// Where in the input, such as `Bundle.entry[0].resource.dosageInstruction[1].sequence`.
    public var path: String
    /// The dosage instruction held, by its index in the order; `nil` when the whole order is.
    public var dosage: Int?
    /// The activity the dosage would have been scheduled as (`rx-KEY/2`); for a whole
    /// order, its first (`rx-KEY`).
    public var activityID: String
    /// What the reason is about: the timing's text, the modifier extensions' URLs.
    public var detail: String?

    public init(_ reason: Reason, at path: String, dosage: Int? = nil, activityID: String, detail: String? = nil) {
        self.reason = reason
        self.path = path
        self.dosage = dosage
        self.activityID = activityID
        self.detail = detail
    }

    public var description: String {
        let what = switch reason {
        case .modifierExtension: "a modifierExtension (\(detail ?? "")) changes what the order means and CareSync does not understand it"
        case .timingText: "the timing is given as text only (\"\(detail ?? "")\"), which CareSync does not guess"
        case .followsOpenStep: "it follows a step of the sequence that has no end, so its start is not given"
        }
        return "\(path): held for review: \(what): not scheduled"
    }
}

/// An order with parts held for review, as an import found it and the store keeps it.
public struct HeldOrder: Sendable, Hashable, Codable {
    /// The order's reference, such as `MedicationRequest/abc`.
    public var reference: String
    /// The medication's name, as its activities would be titled.
    public var title: String?
    /// The file or URL the order was read from.
    public var document: String?
    public var holds: [ReviewHold]

    public init(reference: String, title: String?, document: String? = nil, holds: [ReviewHold]) {
        self.reference = reference
        self.title = title
        self.document = document
        self.holds = holds
    }

    /// Whether the whole order is held, not only some of its dosage instructions.
    public var isWhole: Bool { holds.contains { $0.dosage == nil } }

    /// The review as the store keeps it (``HeldSource/review``).
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// The review the store kept for `held`.
    public init(_ held: HeldSource) throws {
        self = try JSONDecoder().decode(Self.self, from: held.review)
    }
}
