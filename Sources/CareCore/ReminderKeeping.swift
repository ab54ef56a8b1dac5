import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The primary's reminders and missed-dose alerts as the record keeps them. The scheduler
/// and the monitor (module `Reminders`) decide when; these rules decide what the record may
/// hold:
///
/// 1. **A reminder is delivered once**: one fired or missed is never settled so again; a
///    snooze moves it to its new due time whatever it was.
/// 2. **Only a reminder still waiting is withdrawn**: a pending or snoozed one whose event
///    needs none; fired and missed ones stay as what happened.
/// 3. **The window replaces only what waits**: pending reminders due from now on that the new
///    window lacks are dropped, the window's are added or updated while pending, and those
///    settled (fired, missed, snoozed) or due before now are left alone.
/// 4. **An alert is raised once** per event and kind (missed, all clear).
public struct ReminderKeeping: Sendable {
    let store: CarePlanStore

    /// Records that `reminder` fired or was missed at `instant` (or was snoozed to its new due
    /// time); false if rule 1 refuses, so that nothing is done twice.
    @discardableResult
    public func settle(_ reminder: Reminder, as status: ReminderStatus, at instant: Date) async throws(CarePlanStoreError) -> Bool {
        try await store.transaction { record in
            let current = try record.reminders.status(of: reminder.key)
            if status != .snoozed, current == .fired || current == .missed { return false }
            try record.reminders.keep(reminder, as: status, decidedAt: instant)
            return true
        }
    }

    /// Withdraws the reminder of `key` if it still waits (rule 2).
    public func withdraw(_ key: EventKey) async throws(CarePlanStoreError) {
        try await store.transaction { record in
            guard let status = try record.reminders.status(of: key), status == .pending || status == .snoozed else { return }
            try record.reminders.forget( key)
        }
    }

    /// Makes `window` the pending reminders by rule 3; those due before `instant` wait to be fired.
    public func replacePending(with window: [Reminder], keepingDueBefore instant: Date) async throws(CarePlanStoreError) {
        try await store.transaction { record in
            let planned = Set(window.map(\.key))
            for key in try record.reminders.pendingKeys(dueFrom: instant) where !planned.contains(key) {
                try record.reminders.forget( key)
            }
            for reminder in window where try record.reminders.status(of: reminder.key).map({ $0 == .pending }) ?? true {
                try record.reminders.keep(reminder, as: .pending, decidedAt: nil)
            }
        }
    }

    /// Keeps each of `alerts` that rule 4 allows; returns those kept, with their sequence
    /// numbers, in order.
    public func raise(_ alerts: [DoseAlert]) async throws(CarePlanStoreError) -> [DoseAlert] {
        guard !alerts.isEmpty else { return [] }
        return try await store.transaction { record in
            var kept: [DoseAlert] = []
            for alert in alerts where try !record.reminders.alertRaised(alert.kind, for: alert.key) { kept.append(try record.reminders.keep(alert)) }
            return kept
        }
    }

    /// Forgets alerts raised before `instant`; returns how many.
    @discardableResult
    public func forgetAlerts(raisedBefore instant: Date) async throws(CarePlanStoreError) -> Int {
        try await store.transaction { record in try record.reminders.forgetAlerts(raisedBefore: instant) }
    }
}
