import CarePlanStore
import Foundation

/// What a backup holds, sealed with it: the store's figures when it was copied, when, and
/// each file with its size and SHA-256. `caresync backup inspect` shows it without restoring.
public struct BackupManifest: Codable, Sendable, Hashable {
    /// A file of the backup: the store (`store.sqlite`), or one of the primary's identity
    /// directory (`identity/NAME`).
    public struct File: Codable, Sendable, Hashable {
        public var name: String
        public var size: Int
        /// Lowercase hexadecimal.
        public var sha256: String
    }

    public var format: Int
    public var createdAt: Date
    public var store: StoreSummary
    /// Whether the primary's identity (its key, certificate and health record sign-in) is in
    /// it: restored with it, the new primary is the same primary to every companion.
    public var withIdentity: Bool
    public var files: [File]

    /// The store's file in a backup.
    public static let storeFile = "store.sqlite"
    /// The folder identity files go in.
    public static let identityFolder = "identity/"
}
