import CarePlan
import Foundation
import GRDB

/// Where a reminder stands in the store.
public enum ReminderStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// In the window, waiting for its time.
    case pending
    /// Delivered; it never fires again.
    case fired
    /// Fell due while the primary was down, past the grace period: never fired.
    case missed
    /// Moved to a later time by the patient; pending until then.
    case snoozed
}

/// A reminder with its status.
public struct ReminderEntry: Sendable, Hashable, Codable {
    public var reminder: Reminder
    public var status: ReminderStatus
    public var decidedAt: Date?
}

extension ReminderStore {
    /// Reminders with one of `statuses`, nearest first.
    public func all(_ statuses: Set<ReminderStatus> = [.pending, .snoozed]) async throws(CarePlanStoreError) -> [ReminderEntry] {
        let names = statuses.map(\.rawValue).sorted()
        return try await read { db in
            try db.rows(
                "SELECT * FROM reminder WHERE status IN (\(names.map { _ in "?" }.joined(separator: ","))) ORDER BY due_at, activity_id, occurrence",
                arguments: StatementArguments(names)
            ).map(Self.reminderEntry)
        }
    }

    /// Keys of reminders that must not be planned again: fired, missed or snoozed.
    public func settledReminderKeys(from day: CalendarDay) async throws(CarePlanStoreError) -> Set<EventKey> {
        try await read { db in
            Set(try db.rows(
                "SELECT activity_id, day, occurrence FROM reminder WHERE status != 'pending' AND day >= ?",
                arguments: [day.daysSinceEpoch]
            ).map { EventKey(activityID: $0[0], day: CalendarDay(daysSinceEpoch: $0[1]), occurrence: $0[2]) })
        }
    }

    static func reminderEntry(_ row: Row) -> ReminderEntry {
        ReminderEntry(
            reminder: Reminder(
                key: row.eventKey,
                title: row["title"], time: row.timeOfDay,
                dueAt: Date(timeIntervalSince1970: row["due_at"])),
            status: ReminderStatus(rawValue: row["status"]) ?? .pending,
            decidedAt: (row["decided_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
