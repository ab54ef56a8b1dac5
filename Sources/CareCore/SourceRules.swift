import CarePlan
@_spi(CareCore) import CarePlanStore

/// The rules activities from an outside source (a FHIR server's orders) are judged by, in
/// the transaction that keeps them:
///
/// 1. **A source is an activity's**: a source for an activity the record does not keep is
///    refused.
/// 2. **A review replaces the holds of what it read**, before any activity: a record it read
///    but does not hold is held no longer; one it holds is held.
/// 3. **A hold keeps its time**: held again for what it said before, a record keeps the time
///    it was first held; held for something else, it is held from now.
/// 4. **Sourced activities load as a plan's do** (plan rules 1 to 5): added from their first
///    day (as added one by one, not the plan document's), versioned from the import's day if
///    they differ or were ended, else unchanged; each keeps its source.
/// 5. **An item without an activity ends it**: a kept activity not ended is ended from the
///    import's day; one ended is unchanged; one never kept is skipped, its source too.
enum SourceRules {
    /// Applies `items` and `review` (rules 2 to 5).
    static func apply(
        _ record: RecordTransaction, _ items: [SourcedActivity], review: SourceReview?, effectiveFrom: CalendarDay, device: String
    ) throws -> PlanLoadReport {
        if let review { try replaceHolds(record, review) }
        var report = PlanLoadReport()
        for item in items {
            if let activity = item.activity {
                let loaded = try PlanRules.load(
                    record, activity, effectiveFrom: effectiveFrom, firstDay: item.firstDay, origin: .api, device: device)
                report.record(loaded, activity.identifier)
            } else {
                guard let kept = try record.plan.activity(item.activityID) else { continue }
                if kept.endedFrom == nil {
                    _ = try record.plan.end(item.activityID, from: effectiveFrom, device: device)
                    report.ended.append(item.activityID)
                } else {
                    report.unchanged.append(item.activityID)
                }
            }
            try setSource(record, item.source, for: item.activityID)
        }
        report.revision = try record.revision()
        return report
    }

    /// Rule 1: keeps `source` as where `activityID` came from.
    @discardableResult
    static func setSource(_ record: RecordTransaction, _ source: ActivitySource, for activityID: String) throws -> ActivitySource {
        guard try record.plan.activity(activityID) != nil else { throw CarePlanStoreError.unknownActivity(activityID) }
        return try record.sources.keep(source, for: activityID)
    }

    /// Rules 2 and 3.
    static func replaceHolds(_ record: RecordTransaction, _ review: SourceReview) throws {
        let held = Set(review.held.map(\.reference))
        for reference in review.reviewed where !held.contains(reference) {
            try record.sources.release(reference, system: review.system)
        }
        let now = record.now
        for hold in review.held {
            let earlier = try record.sources.hold(of: hold.reference, system: hold.system)
            try record.sources.keep(hold, heldAt: earlier.flatMap { $0.review == hold.review ? $0.heldAt : nil } ?? now)
        }
    }
}
