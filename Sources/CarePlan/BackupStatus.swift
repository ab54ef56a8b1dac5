import Foundation

// How a primary's scheduled backups stand (protocol section 24): plain values here, below
// module CareBackup (whose BackupHealth keeps them, as `BackupHealth.Status` and
// `BackupHealth.Trouble`) and module SyncProtocol (which maps them to and from the
// BackupStatus message), so that the protocol needs nothing of the store to carry them.

/// The last backup round's outcome.
public enum BackupStatus: Sendable, Hashable {
    /// The last round made a backup (`nil`: no round yet).
    case working(lastMade: Date?)
    case failing(BackupTrouble)

    /// What is wrong, if anything.
    public var trouble: BackupTrouble? {
        if case .failing(let trouble) = self { trouble } else { nil }
    }

    /// When the newest backup was made, if any was.
    public var lastMade: Date? {
        switch self {
        case .working(let lastMade): lastMade
        case .failing(let trouble): trouble.lastMade
        }
    }
}

/// Backups failing: since the first failure in a row, the last reason (the system's
/// words, and the cause a person acts on), the next try.
public struct BackupTrouble: Sendable, Hashable {
    public var since: Date
    public var reason: String
    public var cause: BackupFailureCause
    public var retryAt: Date
    /// The newest backup made, if any was.
    public var lastMade: Date?

    public init(since: Date, reason: String, cause: BackupFailureCause, retryAt: Date, lastMade: Date?) {
        self.since = since
        self.reason = reason
        self.cause = cause
        self.retryAt = retryAt
        self.lastMade = lastMade
    }
}

/// What stops the backups, in terms a person can act on: the care app says it in the page's
/// language, while the log and household devices keep the system's own reason. (Module
/// CareBackup tells the cause of an error.)
public enum BackupFailureCause: String, Sendable, Hashable, CaseIterable {
    /// The disk, or the quota on it, is full.
    case diskFull
    /// CareSync may not write where backups go: permissions, or a read-only disk.
    case notPermitted
    /// The backup folder, or one above it, does not exist.
    case folderMissing
    /// Anything else: the primary's log says what.
    case other
}
