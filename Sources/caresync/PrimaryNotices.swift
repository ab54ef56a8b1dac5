import CarePlan
import DesktopNotification
import Foundation
import LineOutput
import Logging

/// How the primary shows what it raises: a reminder that fires (a line in its log and a
/// desktop notification where there is one), a dose alert for household devices (a line).
struct PrimaryNotices: Sendable {
    let json: Bool
    let logger: Logger

    func show(_ reminder: Reminder) {
        if json {
            emitJSON([
                "event": "reminder", "activity": .string(reminder.key.activityID), "day": .string(reminder.key.day.description),
                "occurrence": .int(reminder.key.occurrence), "title": .string(reminder.title),
                "time": .string(reminder.time.description), "dueAt": .string(ISO8601.string(from: reminder.dueAt)),
            ])
        } else {
            emit("Reminder: \(reminder.title) (\(reminder.time)) — \(reminder.key)")
        }
        DesktopNotification.post(title: "CareSync", body: "\(reminder.title) — \(reminder.time)", logger: logger)
    }

    func show(_ alert: DoseAlert) {
        if json {
            emitJSON([
                "event": "alert", "kind": .string(alert.kind.rawValue), "sequence": .int(alert.sequence),
                "activity": .string(alert.key.activityID), "day": .string(alert.key.day.description),
                "occurrence": .int(alert.key.occurrence), "title": .string(alert.title), "time": .string(alert.time.description),
                "dueAt": .string(ISO8601.string(from: alert.dueAt)), "raisedAt": .string(ISO8601.string(from: alert.raisedAt)),
                "critical": .bool(alert.critical), "outcome": .orNull(alert.outcome?.rawValue),
            ])
        } else {
            emit(alert.kind == .missed
                ? "Missed: \(alert.title) (\(alert.time)) — \(alert.key); household devices alerted"
                : "All clear: \(alert.title) (\(alert.time)) — \(alert.key) is \(alert.outcome?.rawValue ?? "no longer in the plan")")
        }
    }
}
