import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The plan as a whole, its activities and its contacts: loading a plan document, setting up
/// a plan, and editing what it holds. Every change is recorded in the change log with the
/// device that made it.
public struct CarePlanning: Sendable {
    let store: CarePlanStore

    /// Loads `plan` from `effectiveFrom` on: new activities added, changed ones versioned,
    /// missing ones ended, contacts replaced (see ``PlanStore/load(_:effectiveFrom:device:)``).
    public func load(_ plan: Plan, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> PlanLoadReport {
        try await store.plan.load(plan, effectiveFrom: effectiveFrom, device: device)
    }

    /// Sets the plan's title, time zone, start day and rules (unchanged when `nil`).
    @discardableResult
    public func configure(
        title: String, timeZone: TimeZone, start: CalendarDay? = nil, routine: DailyRoutine? = nil,
        insights: InsightRules? = nil, missedDose: MissedDosePolicy? = nil, device: String
    ) async throws(CarePlanStoreError) -> PlanInfo {
        try await store.plan.configure(
            title: title, timeZone: timeZone, start: start, routine: routine, insights: insights, missedDose: missedDose, device: device)
    }

    /// Adds a new activity from `effectiveFrom` on.
    @discardableResult
    public func addActivity(_ activity: Activity, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.plan.addActivity(activity, effectiveFrom: effectiveFrom, device: device)
    }

    /// Saves a contact (added, or replacing the one with its id); `nil` when nothing changed.
    @discardableResult
    public func saveContact(_ contact: Contact, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.plan.saveContact(contact, device: device)
    }

    /// Saves several contacts in one transaction; for each, whether it changed anything.
    public func saveContacts(_ contacts: [Contact], device: String) async throws(CarePlanStoreError) -> [Bool] {
        try await store.plan.saveContacts(contacts, device: device)
    }

    /// Removes the contact `id`; `nil` when there was none.
    @discardableResult
    public func removeContact(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.plan.removeContact(id, device: device)
    }
}
