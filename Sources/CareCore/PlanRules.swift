import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The rules a change to the plan is judged by, read from the record inside the transaction
/// that keeps it. Activities:
///
/// 1. **Valid**: an activity is kept only if it validates (``Activity/validate()``).
/// 2. **Added once**: adding an activity the record keeps is refused.
/// 3. **Changed only if kept**: a version of, or the end of, an activity the record does not
///    keep is refused.
/// 4. **Its kind stays**: a version of another kind than the activity's is refused.
/// 5. **Loaded by difference**: an activity the record lacks is added (from its first day);
///    one whose newest version differs, or that was ended, gets a version from the day of the
///    load; one the same is left unchanged.
/// 6. **A plan ends what it dropped**: activities an earlier plan document added, not ended,
///    that this one lacks are ended from the day of the load; others (added one by one, or
///    from a source) stay.
/// 7. **Settings change when they differ**: a setting not given stays as it is, and the plan
///    is configured (a change logged) only if some setting differs. A loaded plan's start is
///    its own, else the one kept, else the day of the load; its patient is its own, or none.
///
/// Contacts (``PlanRules/save(_:_:position:origin:device:)``):
///
/// 8. **Saved by difference**: a contact saved as the record lists it logs nothing.
/// 9. **Place and origin**: a contact keeps its place unless a plan document gives one, and a
///    new one goes last; a plan's contact stays the plan's when saved one by one, and one a
///    plan document lists becomes the plan's.
/// 10. **A plan replaces its own contacts**: the plan's contacts a document lacks are removed;
///     those saved one by one stay.
/// 11. **Removed once**: removing a contact the record does not list logs nothing.
enum PlanRules {
    /// What loading made of an activity.
    enum Loaded { case added, updated, unchanged }

    /// Loads `plan` from `effectiveFrom` on (rules 5, 6, 7 and 10).
    static func load(_ record: RecordTransaction, _ plan: Plan, effectiveFrom: CalendarDay, device: String) throws -> PlanLoadReport {
        var report = PlanLoadReport()
        try configure(
            record, title: plan.title, timeZone: plan.timeZone, start: try plan.start ?? record.plan.info().start ?? effectiveFrom,
            routine: plan.routine, insights: plan.insights, missedDose: plan.missedDose, patient: .some(plan.patient),
            device: device)
        for (position, activity) in plan.activities.enumerated() {
            try record.plan.move(activity: activity.identifier, to: position)
            let loaded = try load(
                record, activity, effectiveFrom: effectiveFrom, firstDay: effectiveFrom, origin: .plan, position: position,
                device: device)
            report.record(loaded, activity.identifier)
        }
        let listed = Set(plan.activities.map(\.identifier))
        for id in try record.plan.activityIDsFromDocument() where !listed.contains(id) {
            _ = try record.plan.end(id, from: effectiveFrom, device: device)
            report.ended.append(id)
        }
        try replaceContacts(record, with: plan.contacts, in: &report, device: device)
        report.revision = try record.revision()
        return report
    }

    /// Rule 5: adds `activity` from `firstDay` if the record lacks it, versions it from
    /// `effectiveFrom` if it differs or was ended, else leaves it.
    static func load(
        _ record: RecordTransaction, _ activity: Activity, effectiveFrom: CalendarDay, firstDay: CalendarDay,
        origin: ActivityOrigin, position: Int? = nil, device: String
    ) throws -> Loaded {
        guard let kept = try record.plan.activity(activity.identifier) else {
            try validate(activity)
            _ = try record.plan.insert(activity, effectiveFrom: firstDay, origin: origin, position: position, device: device)
            return .added
        }
        if kept.latest?.activity == activity, kept.endedFrom == nil { return .unchanged }
        try validate(activity)
        _ = try version(record, activity, of: kept, effectiveFrom: effectiveFrom, device: device)
        return .updated
    }

    /// Rules 2 and 1: adds `activity`, new, from `effectiveFrom`.
    static func add(_ record: RecordTransaction, _ activity: Activity, effectiveFrom: CalendarDay, device: String) throws -> StoreChange {
        guard try record.plan.activity(activity.identifier) == nil else { throw CarePlanStoreError.activityExists(activity.identifier) }
        try validate(activity)
        return try record.plan.insert(activity, effectiveFrom: effectiveFrom, origin: .api, position: nil, device: device)
    }

    /// Rules 1, 3 and 4: a version of `activity` from `effectiveFrom` on.
    static func update(_ record: RecordTransaction, _ activity: Activity, effectiveFrom: CalendarDay, device: String) throws -> StoreChange {
        try validate(activity)
        guard let kept = try record.plan.activity(activity.identifier) else { throw CarePlanStoreError.unknownActivity(activity.identifier) }
        return try version(record, activity, of: kept, effectiveFrom: effectiveFrom, device: device)
    }

    /// Rule 3: ends the activity `id` from `day`.
    static func end(_ record: RecordTransaction, _ id: String, from day: CalendarDay, device: String) throws -> StoreChange {
        guard try record.plan.activity(id) != nil else { throw CarePlanStoreError.unknownActivity(id) }
        return try record.plan.end(id, from: day, device: device)
    }

    /// Rule 7: the plan's settings, those not given as they are; configured if any differs.
    static func configure(
        _ record: RecordTransaction, title: String, timeZone: TimeZone, start: CalendarDay?, routine: DailyRoutine?,
        insights: InsightRules?, missedDose: MissedDosePolicy?, patient: Patient??, device: String
    ) throws {
        let current = try record.plan.info()
        var info = current
        info.title = title
        info.timeZone = timeZone
        info.start = start ?? current.start
        info.routine = routine ?? current.routine
        info.insights = insights ?? current.insights
        info.missedDose = missedDose ?? current.missedDose
        // `nil` leaves the patient as it is; `.some(nil)` (a document without one) clears it.
        info.patient = patient ?? current.patient
        guard info != current else { return }
        try record.plan.keep(info, device: device)
    }

    /// Rule 4: a version of the kept activity, of its kind.
    private static func version(
        _ record: RecordTransaction, _ activity: Activity, of kept: StoredActivity, effectiveFrom: CalendarDay, device: String
    ) throws -> StoreChange {
        let kind = kept.kind ?? activity.kind
        guard kind == activity.kind else { throw CarePlanStoreError.kindChanged(activity.identifier, from: kind, to: activity.kind) }
        return try record.plan.addVersion(activity, effectiveFrom: effectiveFrom, device: device)
    }

    /// Rule 1.
    private static func validate(_ activity: Activity) throws(CarePlanStoreError) {
        do {
            try activity.validate()
        } catch {
            throw .invalidActivity(activity.identifier, error)
        }
    }
}

extension PlanLoadReport {
    mutating func record(_ loaded: PlanRules.Loaded, _ id: String) {
        switch loaded {
        case .added: added.append(id)
        case .updated: updated.append(id)
        case .unchanged: unchanged.append(id)
        }
    }
}
