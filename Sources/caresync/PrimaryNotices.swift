import CarePlan
import DesktopNotification
import Foundation
import LineOutput
import Logging
import Synchronization

/// How the primary shows what it raises: a reminder that fires (a line in its log and a
/// desktop notification where there is one), a dose alert for household devices (a line).
///
/// The primary's first line says where it listens (``Announcement``); a line raised before
/// that (an alert for a dose missed while it was down, found as it starts) waits for it.
final class PrimaryNotices: Sendable {
    let json: Bool
    let logger: Logger
    /// Lines waiting for the announcement; `nil` once it is made.
    private let waiting = Mutex<[@Sendable () -> Void]?>([])

    init(json: Bool, logger: Logger) {
        self.json = json
        self.logger = logger
    }

    /// The first line has been written: the lines that waited follow it, in order (under
    /// the lock, so that none raised meanwhile overtakes them).
    func announced() {
        waiting.withLock { waiting in
            for line in waiting ?? [] { line() }
            waiting = nil
        }
    }

    /// Writes `line` now, or after the announcement if it has not been made.
    private func write(_ line: @escaping @Sendable () -> Void) {
        let now = waiting.withLock { waiting in
            guard waiting != nil else { return true }
            waiting?.append(line)
            return false
        }
        if now { line() }
    }

    func show(_ reminder: Reminder) {
        write { self.line(reminder) }
        DesktopNotification.post(title: "CareSync", body: "\(reminder.title) — \(reminder.time)", logger: logger)
    }

    func show(_ alert: DoseAlert) {
        write { self.line(alert) }
    }

    private func line(_ reminder: Reminder) {
        if json {
            emitJSON([
                "event": "reminder", "activity": .string(reminder.key.activityID), "day": .string(reminder.key.day.description),
                "occurrence": .int(reminder.key.occurrence), "title": .string(reminder.title),
                "time": .string(reminder.time.description), "dueAt": .string(ISO8601.string(from: reminder.dueAt)),
            ])
        } else {
            emit("Reminder: \(reminder.title) (\(reminder.time)) — \(reminder.key)")
        }
    }

    private func line(_ alert: DoseAlert) {
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
