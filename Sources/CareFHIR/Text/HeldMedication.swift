import CareLanguage
import CarePlanStore
import Foundation

/// A medication held for review, as `caresync meds` and the care app list it: an order, or
/// one dosage instruction of it, that an import took but did not schedule, and why.
public struct HeldMedication: Sendable, Hashable {
    /// The order, such as `MedicationRequest/abc`.
    public var order: String
    public var title: String
    /// The activity it would be scheduled as (for a whole order, its first).
    public var activityID: String
    /// Whether the whole order is held, not one dosage instruction of it.
    public var isWholeOrder: Bool
    /// The held dosage's instructions, or the whole order's.
    public var instructions: String
    /// The prescriber's own text of that dosage.
    public var text: String?
    /// Why it is held and what releases it, in the generator's language.
    public var reason: String
    /// When the store first held it so.
    public var heldAt: Date?

    /// Every medication `store` holds for review, with words from `generator`.
    public static func all(in store: CarePlanStore, text generator: DosageText) async throws -> [HeldMedication] {
        try await store.sources.held(system: OrderMapper.system).flatMap { held in
            let review = try HeldOrder(held)
            let dosages = (try? FHIRInput.parse(held.payload).orders.first?.dosages) ?? []
            return review.holds.map { hold in
                let dosage = hold.dosage.flatMap { dosages.indices.contains($0) ? dosages[$0] : nil }
                return HeldMedication(
                    order: review.reference, title: review.title ?? review.reference, activityID: hold.activityID,
                    isWholeOrder: hold.dosage == nil,
                    instructions: dosage.map(generator.sentence(for:)) ?? generator.sentence(for: dosages),
                    text: dosage?.text ?? (dosages.count == 1 ? dosages[0].text : nil),
                    reason: generator.language.phrase(["held", hold.reason.rawValue], ["detail": hold.detail ?? ""]),
                    heldAt: held.heldAt)
            }
        }
    }
}
