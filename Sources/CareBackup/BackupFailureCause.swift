import CarePlan
import CarePlanStore
import Foundation
import PrivateFiles

/// How module CareBackup tells the cause (a plain value of module CarePlan) of a failure.
extension BackupFailureCause {
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
