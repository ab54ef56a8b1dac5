import CarePlan
import Foundation
import GRDB

/// Reminders and missed-dose alerts, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordReminders: RecordPart {
    let record: RecordTransaction
}

extension RecordReminders {
    /// Where the reminder of the event `key` stands, if the store holds one.
    public func status(of key: EventKey) throws -> ReminderStatus? {
        try db.value(
            String.self, "SELECT status FROM reminder WHERE activity_id = ? AND day = ? AND occurrence = ?",
            arguments: [key.activityID, key.day.daysSinceEpoch, key.occurrence]
        ).flatMap(ReminderStatus.init(rawValue:))
    }

    /// Keeps `reminder` (its title, time and due time) with `status`, decided at `instant`.
    public func keep(_ reminder: Reminder, as status: ReminderStatus, decidedAt instant: Date?) throws {
        try db.run(
            """
            INSERT INTO reminder (activity_id, day, occurrence, title, time, due_at, status, decided_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id, day, occurrence) DO UPDATE SET
                title = excluded.title, time = excluded.time, due_at = excluded.due_at, status = excluded.status,
                decided_at = excluded.decided_at
            """,
            arguments: [reminder.key.activityID, reminder.key.day.daysSinceEpoch, reminder.key.occurrence,
                        reminder.title, reminder.time.minutes, reminder.dueAt.timeIntervalSince1970,
                        status.rawValue, instant?.timeIntervalSince1970])
    }

    /// Forgets the reminder of the event `key`.
    public func forget(_ key: EventKey) throws {
        try db.run("DELETE FROM reminder WHERE activity_id = ? AND day = ? AND occurrence = ?",
                   arguments: [key.activityID, key.day.daysSinceEpoch, key.occurrence])
    }

    /// The events with a pending reminder due at or after `instant`.
    public func pendingKeys(dueFrom instant: Date) throws -> [EventKey] {
        try db.rows(
            "SELECT activity_id, day, occurrence FROM reminder WHERE status = 'pending' AND due_at >= ?",
            arguments: [instant.timeIntervalSince1970]
        ).map(\.eventKey)
    }

    /// Whether an alert of `kind` was raised for the event `key`.
    public func alertRaised(_ kind: DoseAlert.Kind, for key: EventKey) throws -> Bool {
        try db.value(
            Bool.self, "SELECT 1 FROM dose_alert WHERE kind = ? AND activity_id = ? AND day = ? AND occurrence = ?",
            arguments: [kind.rawValue, key.activityID, key.day.daysSinceEpoch, key.occurrence]) ?? false
    }

    /// Keeps `alert`; returns it with its sequence number.
    public func keep(_ alert: DoseAlert) throws -> DoseAlert {
        try db.run("""
            INSERT INTO dose_alert (kind, activity_id, day, occurrence, title, time, due_at, raised_at, critical, outcome)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                alert.kind.rawValue, alert.key.activityID, alert.key.day.daysSinceEpoch, alert.key.occurrence, alert.title,
                alert.time.minutes, alert.dueAt.timeIntervalSince1970, alert.raisedAt.timeIntervalSince1970, alert.critical,
                alert.outcome?.rawValue,
            ])
        var kept = alert
        kept.sequence = Int(db.lastInsertedRowID)
        return kept
    }

    /// Forgets the alerts raised before `instant`; returns how many.
    public func forgetAlerts(raisedBefore instant: Date) throws -> Int {
        try db.run("DELETE FROM dose_alert WHERE raised_at < ?", arguments: [instant.timeIntervalSince1970])
        return db.changesCount
    }
}
