import CarePlan
import CarePlanStore

/// A medication's instructions in a language: generated from its order's dosage (kept with
/// the activity when it was imported), else the plan's own text.
public struct MedicationInstructions: Sendable, Hashable {
    /// The instructions of the activity's own dosage.
    public var instructions: String
    /// The whole order's instructions when it has several dosages ("…, then …").
    public var orderInstructions: String?
    /// The order, such as `MedicationRequest/abc`.
    public var order: String?

    /// Reads the activity's order from `store` and writes its instructions with `generator`.
    public init(_ activity: Activity, store: CarePlanStore, text generator: DosageText) async throws(CarePlanStoreError) {
        let source = try await store.sources.source(of: activity.identifier)
        let dosages = source.map(OrderMapper.dosages(in:)) ?? []
        let dosage = OrderMapper.dosage(of: activity, among: dosages)
        orderInstructions = dosages.count > 1 ? generator.sentence(for: dosages) : nil
        instructions = dosage.map(generator.sentence(for:)) ?? activity.instructions ?? ""
        order = source?.reference ?? activity.medication?.request
    }
}
