import CarePlan
import Foundation
import LineOutput
import Logging

/// How the primary shows a reminder that fires: a line in its log and, where there is
/// one, a desktop notification through notify-send (never required).
struct ReminderNotice: Sendable {
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
        notifyDesktop(reminder)
    }

    private func notifyDesktop(_ reminder: Reminder) {
        guard let notifySend = ["/usr/bin/notify-send", "/usr/local/bin/notify-send"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: notifySend)
        process.arguments = ["CareSync", "\(reminder.title) — \(reminder.time)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            logger.warning("notify-send could not show the reminder", metadata: ["path": "\(notifySend)", "error": "\(error)"])
        }
    }
}
