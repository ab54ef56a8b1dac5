import CarePlan
@_spi(CareCore) import CarePlanStore

/// Activities an outside source keeps (a FHIR server's medication orders): imported together
/// with where each came from, and with the orders held back for review; judged by
/// ``SourceRules``.
public struct SourcedActivities: Sendable {
    let store: CarePlanStore

    /// Applies `items` from their source in one transaction, `review`'s holds first: new
    /// activities are added from their `firstDay`, changed ones get a version from
    /// `effectiveFrom`, unchanged ones are left alone, and those without an activity are ended
    /// from `effectiveFrom` if they exist.
    @discardableResult
    public func apply(
        _ items: [SourcedActivity], review: SourceReview? = nil, effectiveFrom: CalendarDay, device: String
    ) async throws(CarePlanStoreError) -> PlanLoadReport {
        try await store.transaction { record in
            try SourceRules.apply(record, items, review: review, effectiveFrom: effectiveFrom, device: device)
        }
    }

    /// Records (or replaces) where the existing activity `activityID` came from.
    @discardableResult
    public func setSource(_ source: ActivitySource, for activityID: String) async throws(CarePlanStoreError) -> ActivitySource {
        try await store.transaction { record in try SourceRules.setSource(record, source, for: activityID) }
    }
}
