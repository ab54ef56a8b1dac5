/// Why a backup could not be made, read or restored. Whatever the reason, nothing was written
/// where the backup or the restored store was to go.
public enum BackupError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No passphrase was given, or one too short to protect health data.
    case passphrase(String)
    /// The file does not begin as a CareSync backup.
    case notABackup(path: String)
    /// A newer CareSync wrote it, in a format this one does not read.
    case newerFormat(path: String, format: Int, supported: Int)
    /// The file ends before the length its header gives.
    case truncated(path: String, expected: Int, found: Int)
    /// The passphrase does not open it.
    case wrongPassphrase(path: String)
    /// It opens with the passphrase, but its content was altered or damaged.
    case damaged(path: String, reason: String)
    /// A store is at the restore's destination, and replacing it was not asked for.
    case storeExists(path: String)
    /// A file could not be read or written.
    case file(path: String, reason: String)

    public var description: String {
        switch self {
        case .passphrase(let reason): "no usable backup passphrase: \(reason)"
        case .notABackup(let path): "\(path) is not a CareSync backup"
        case .newerFormat(let path, let format, let supported):
            "\(path) is a backup of format \(format), written by a newer CareSync; this one reads format \(supported): upgrade to restore it"
        case .truncated(let path, let expected, let found):
            "\(path) is truncated: \(found) bytes of \(expected); nothing was restored"
        case .wrongPassphrase(let path): "the passphrase does not open \(path)"
        case .damaged(let path, let reason): "\(path) was altered or damaged (\(reason)); nothing was restored"
        case .storeExists(let path): "\(path) holds a store already: restore elsewhere, or replace it with --replace (stop its primary first)"
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }
}
