import CarePlan
import Foundation
import GRDB

extension ReminderStore {
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

    static func doseAlert(_ row: Row) -> DoseAlert {
        DoseAlert(
            sequence: row["sequence"], kind: DoseAlert.Kind(rawValue: row["kind"]) ?? .missed,
            key: row.eventKey,
            title: row["title"], time: row.timeOfDay,
            dueAt: Date(timeIntervalSince1970: row["due_at"]), raisedAt: Date(timeIntervalSince1970: row["raised_at"]),
            critical: row["critical"], outcome: (row["outcome"] as String?).flatMap(EventState.init(rawValue:)))
    }
}
