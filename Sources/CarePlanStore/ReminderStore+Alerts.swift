import CarePlan
import Foundation
import GRDB

extension ReminderStore {
    /// Keeps each of `alerts` (missed doses, or all clears) that the store does not hold yet
    /// for its event and kind, and returns those kept, with their sequence numbers, in order.
    /// An event is alerted as missed once and cleared once, however often this is asked.
    public func raise(_ alerts: [DoseAlert]) async throws(CarePlanStoreError) -> [DoseAlert] {
        guard !alerts.isEmpty else { return [] }
        return try await write { db in
            var kept: [DoseAlert] = []
            for alert in alerts {
                try db.run("""
                    INSERT INTO dose_alert (kind, activity_id, day, occurrence, title, time, due_at, raised_at, critical, outcome)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """, arguments: [
                        alert.kind.rawValue, alert.key.activityID, alert.key.day.daysSinceEpoch, alert.key.occurrence, alert.title,
                        alert.time.minutes, alert.dueAt.timeIntervalSince1970, alert.raisedAt.timeIntervalSince1970, alert.critical,
                        alert.outcome?.rawValue,
                    ])
                guard db.changesCount > 0 else { continue }
                var raised = alert
                raised.sequence = Int(db.lastInsertedRowID)
                kept.append(raised)
            }
            return kept
        }
    }

    /// Missed doses without an all clear, oldest first.
    public func openMissedDoses() async throws(CarePlanStoreError) -> [DoseAlert] {
        try await read { db in
            try db.rows("""
                SELECT * FROM dose_alert AS missed WHERE kind = 'missed' AND NOT EXISTS (
                    SELECT 1 FROM dose_alert AS clear WHERE clear.kind = 'cleared' AND clear.activity_id = missed.activity_id
                        AND clear.day = missed.day AND clear.occurrence = missed.occurrence)
                ORDER BY sequence
                """).map(Self.doseAlert)
        }
    }

    /// The events alerted as missed, from `day` on.
    public func missedDoseKeys(from day: CalendarDay) async throws(CarePlanStoreError) -> Set<EventKey> {
        try await read { db in
            Set(try db.rows(
                "SELECT activity_id, day, occurrence FROM dose_alert WHERE kind = 'missed' AND day >= ?", arguments: [day.daysSinceEpoch]
            ).map(\.eventKey))
        }
    }

    /// The alerts after `sequence` raised at or after `since`, newest first, at most `limit`.
    public func alerts(after sequence: Int, raisedSince since: Date, limit: Int) async throws(CarePlanStoreError) -> [DoseAlert] {
        try await read { db in
            try db.rows(
                "SELECT * FROM dose_alert WHERE sequence > ? AND raised_at >= ? ORDER BY sequence DESC LIMIT ?",
                arguments: [sequence, since.timeIntervalSince1970, limit]
            ).map(Self.doseAlert)
        }
    }

    /// Forgets alerts raised before `instant`; returns how many.
    @discardableResult
    public func forgetAlerts(raisedBefore instant: Date) async throws(CarePlanStoreError) -> Int {
        try await write { db in
            try db.run("DELETE FROM dose_alert WHERE raised_at < ?", arguments: [instant.timeIntervalSince1970])
            return db.changesCount
        }
    }

    static func doseAlert(_ row: Row) -> DoseAlert {
        DoseAlert(
            sequence: row["sequence"], kind: DoseAlert.Kind(rawValue: row["kind"]) ?? .missed,
            key: row.eventKey,
            title: row["title"], time: row.timeOfDay,
            dueAt: Date(timeIntervalSince1970: row["due_at"]), raisedAt: Date(timeIntervalSince1970: row["raised_at"]),
            critical: row["critical"], outcome: (row["outcome"] as String?).flatMap(EventState.init(rawValue:)))
    }
}
