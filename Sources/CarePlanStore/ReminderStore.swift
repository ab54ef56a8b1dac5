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

    /// Makes `window` the pending reminders: new ones are added, pending ones no longer in
    /// it are dropped (their events were done, or the plan changed); others are untouched,
    /// and so are pending ones due before `instant`, which wait to be fired.
    public func replacePendingReminders(with window: [Reminder], keepingDueBefore instant: Date) async throws(CarePlanStoreError) {
        try await write { db in
            let keys = Set(window.map(\.key))
            for row in try db.rows(
                "SELECT activity_id, day, occurrence FROM reminder WHERE status = 'pending' AND due_at >= ?",
                arguments: [instant.timeIntervalSince1970]
            ) {
                let key = EventKey(activityID: row[0], day: CalendarDay(daysSinceEpoch: row[1]), occurrence: row[2])
                if !keys.contains(key) {
                    try db.run("DELETE FROM reminder WHERE activity_id = ? AND day = ? AND occurrence = ?",
                               arguments: [key.activityID, key.day.daysSinceEpoch, key.occurrence])
                }
            }
            for reminder in window {
                try db.run(
                    """
                    INSERT INTO reminder (activity_id, day, occurrence, title, time, due_at, status)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending')
                    ON CONFLICT (activity_id, day, occurrence) DO UPDATE SET
                        title = excluded.title, time = excluded.time, due_at = excluded.due_at
                    WHERE status = 'pending'
                    """,
                    arguments: [reminder.key.activityID, reminder.key.day.daysSinceEpoch, reminder.key.occurrence,
                                reminder.title, reminder.time.minutes, reminder.dueAt.timeIntervalSince1970])
            }
        }
    }

    /// Withdraws a pending or snoozed reminder whose event needs none any more.
    public func withdrawReminder(_ key: EventKey) async throws(CarePlanStoreError) {
        try await write { db in
            try db.run(
                "DELETE FROM reminder WHERE activity_id = ? AND day = ? AND occurrence = ? AND status IN ('pending', 'snoozed')",
                arguments: [key.activityID, key.day.daysSinceEpoch, key.occurrence])
        }
    }

    /// Records that `reminder` fired or was missed (or was snoozed to its new due time).
    /// Returns false if it was already settled that way, so nothing is done twice.
    @discardableResult
    public func settle(_ reminder: Reminder, as status: ReminderStatus, at instant: Date) async throws(CarePlanStoreError) -> Bool {
        try await write { db in
            let current = try db.value(
                String.self, "SELECT status FROM reminder WHERE activity_id = ? AND day = ? AND occurrence = ?",
                arguments: [reminder.key.activityID, reminder.key.day.daysSinceEpoch, reminder.key.occurrence])
            if status != .snoozed, current == ReminderStatus.fired.rawValue || current == ReminderStatus.missed.rawValue { return false }
            try db.run(
                """
                INSERT INTO reminder (activity_id, day, occurrence, title, time, due_at, status, decided_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (activity_id, day, occurrence) DO UPDATE SET
                    due_at = excluded.due_at, status = excluded.status, decided_at = excluded.decided_at
                """,
                arguments: [reminder.key.activityID, reminder.key.day.daysSinceEpoch, reminder.key.occurrence,
                            reminder.title, reminder.time.minutes, reminder.dueAt.timeIntervalSince1970,
                            status.rawValue, instant.timeIntervalSince1970])
            return true
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
