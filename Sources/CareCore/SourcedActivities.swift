import CarePlan
@_spi(CareCore) import CarePlanStore

/// Activities an outside source keeps (a FHIR server's medication orders): imported together
/// with where each came from, and with the orders held back for review.
public struct SourcedActivities: Sendable {
    let store: CarePlanStore

    /// Applies `items` from their source in one transaction, with the orders `review` holds
    /// (see ``SourceStore/applySourced(_:review:effectiveFrom:device:)``).
    public func apply(
        _ items: [SourcedActivity], review: SourceReview? = nil, effectiveFrom: CalendarDay, device: String
    ) async throws(CarePlanStoreError) -> PlanLoadReport {
        try await store.sources.applySourced(items, review: review, effectiveFrom: effectiveFrom, device: device)
    }
}
