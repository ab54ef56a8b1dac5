import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The plan as a whole, its activities and its contacts: loading a plan document, setting up
/// a plan, and editing what it holds, each in one transaction and judged by ``PlanRules``.
/// Every change is recorded in the change log with the device that made it.
public struct CarePlanning: Sendable {
    let store: CarePlanStore

    /// Loads `plan` from `effectiveFrom` on: new activities added, changed ones versioned,
    /// missing ones ended, contacts replaced. Loading the same plan twice changes nothing.
    @discardableResult
    public func load(_ plan: Plan, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> PlanLoadReport {
        try await store.transaction { record in try PlanRules.load(record, plan, effectiveFrom: effectiveFrom, device: device) }
    }

    /// Sets the plan's title, time zone, start day and rules (unchanged when `nil`).
    @discardableResult
    public func configure(
        title: String, timeZone: TimeZone, start: CalendarDay? = nil, routine: DailyRoutine? = nil,
        insights: InsightRules? = nil, missedDose: MissedDosePolicy? = nil, device: String
    ) async throws(CarePlanStoreError) -> PlanInfo {
        try await store.transaction { record in
            try PlanRules.configure(
                record, title: title, timeZone: timeZone, start: start, routine: routine, insights: insights,
                missedDose: missedDose, patient: nil, device: device)
            return try record.plan.info()
        }
    }

    /// Adds a new activity whose first version governs days from `effectiveFrom`.
    @discardableResult
    public func addActivity(_ activity: Activity, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.transaction { record in try PlanRules.add(record, activity, effectiveFrom: effectiveFrom, device: device) }
    }

    /// Adds a version of an existing activity that governs days from `effectiveFrom` on;
    /// earlier days keep their versions. Updating an ended activity brings it back.
    @discardableResult
    public func updateActivity(_ activity: Activity, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.transaction { record in try PlanRules.update(record, activity, effectiveFrom: effectiveFrom, device: device) }
    }

    /// Ends an activity: it has no events from `day` on. Nothing recorded is deleted.
    @discardableResult
    public func endActivity(_ id: String, from day: CalendarDay, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.transaction { record in try PlanRules.end(record, id, from: day, device: device) }
    }

    /// Saves a contact (added, or replacing the one with its id); `nil` when nothing changed.
    /// One saved here is not removed by a plan document that lacks it.
    @discardableResult
    public func saveContact(_ contact: Contact, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.transaction { record in try PlanRules.save(record, contact, device: device) }
    }

    /// Saves several contacts in one transaction; for each, whether it changed anything.
    public func saveContacts(_ contacts: [Contact], device: String) async throws(CarePlanStoreError) -> [Bool] {
        try await store.transaction { record in try contacts.map { try PlanRules.save(record, $0, device: device) != nil } }
    }

    /// Removes the contact `id` from the list (its past definitions stay in the history);
    /// `nil` when there was none.
    @discardableResult
    public func removeContact(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.transaction { record in try PlanRules.remove(record, id, device: device) }
    }
}
