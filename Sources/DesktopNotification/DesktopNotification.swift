import ChildProcess
import Foundation
import Logging

/// A desktop notification through notify-send, where there is one: never required, so a
/// machine without it (a server, CI) shows nothing and says nothing.
public enum DesktopNotification {
    /// Shows `body` under `title`, without waiting for it; a notify-send that cannot be
    /// started is logged as a warning.
    public static func post(title: String, body: String, logger: Logger) {
        guard let notifySend = ["/usr/bin/notify-send", "/usr/local/bin/notify-send"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: notifySend)
        process.arguments = [title, body]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.runUnblocked()
        } catch {
            logger.warning("notify-send could not show a notification", metadata: ["path": "\(notifySend)", "error": "\(error)"])
        }
    }
}
