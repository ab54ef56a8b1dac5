import CarePlanStore
import Foundation
import PrivateFiles

/// What stops the backups, in terms a person can act on: the care app says it in the page's
/// language, while the log and household devices keep the system's own reason.
public enum BackupFailureCause: String, Sendable, Hashable, CaseIterable {
    /// The disk, or the quota on it, is full.
    case diskFull
    /// CareSync may not write where backups go: permissions, or a read-only disk.
    case notPermitted
    /// The backup folder, or one above it, does not exist.
    case folderMissing
    /// Anything else: the primary's log says what.
    case other

    /// The cause of `error`, thrown by a backup round.
    public init(of error: any Error) {
        switch error {
        case CarePlanStoreError.diskFull: self = .diskFull
        case PrivateFileError.failed(_, _, let code): self = Self(errno: code)
        default: self = .other
        }
    }

    init(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .diskFull
        case EACCES, EPERM, EROFS: self = .notPermitted
        case ENOENT, ENOTDIR: self = .folderMissing
        default: self = .other
        }
    }
}
