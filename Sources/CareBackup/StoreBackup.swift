import CarePlan
import CarePlanStore
import Crypto
import Foundation
import PrivateFiles

/// A backup of a store as it was at one instant (with the primary's identity if asked), before
/// it is sealed: made while the primary runs, from a consistent copy of its database.
public struct StoreBackup: Sendable {
    public let manifest: BackupManifest
    /// The files' bytes, in the manifest's order.
    let files: [[UInt8]]

    /// Copies `store` (``CarePlanStore/copy(to:)``, into a private temporary directory that
    /// is removed afterwards) and, if `identityDirectory` is given, the primary's identity
    /// files (``IdentityFiles``).
    public static func make(of store: CarePlanStore, identityDirectory: String?, now: Date) async throws -> StoreBackup {
        try await inScratch { copy in
            try await store.copy(to: copy)
            return try await make(fromCopy: copy, identity: try identityDirectory.map { directory throws(BackupError) in try IdentityFiles.read(from: directory) }, now: now)
        }
    }

    /// A backup of the database file `copy`, no longer in use (with `identity`, if given).
    static func make(fromCopy copy: String, identity: IdentityFiles?, now: Date) async throws -> StoreBackup {
        // The figures are the copy's own: what the manifest promises is what the file holds.
        let summary = try await CarePlanStore(path: copy).summary()
        var named = [(BackupManifest.storeFile, try contents(of: copy))]
        if let identity { named += identity.names.map { (BackupManifest.identityFolder + $0, identity.files[$0]!) } }
        let files = named.map { BackupManifest.File(name: $0.0, size: $0.1.count, sha256: BackupFile.hex(SHA256.hash(data: $0.1))) }
        return StoreBackup(
            // In whole seconds, as the manifest keeps it.
            manifest: BackupManifest(
                format: BackupFile.format, createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), store: summary,
                withIdentity: identity != nil, files: files),
            files: named.map(\.1))
    }

    /// Runs `body` with the path of a database file to make in a private temporary directory,
    /// removed afterwards.
    static func inScratch<T>(_ body: (String) async throws -> T) async throws -> T {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-backup-\(UUID().uuidString)").path
        try PrivateFiles.makeDirectory(scratch, own: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        return try await body(scratch + "/" + BackupManifest.storeFile)
    }

    /// Seals the backup under `passphrase` and writes it to `path` in one piece (0600): the
    /// file appears whole or not at all.
    ///
    /// - Throws: ``BackupError`` for the sealing; `PrivateFileError` for the file, with the
    ///   system's errno (what ``BackupFailureCause`` reads).
    public func write(to path: String, passphrase: BackupPassphrase) throws {
        try write(to: path, passphrase: passphrase, cost: BackupFile.Cost())
    }

    func write(to path: String, passphrase: BackupPassphrase, cost: BackupFile.Cost) throws {
        let sealed = try BackupFile.seal(manifest, files: files, passphrase: passphrase, cost: cost)
        try PrivateFiles.replace(path, contents: sealed)
    }

    /// The manifest of the backup at `path`, every file checked, nothing restored.
    public static func inspect(_ path: String, passphrase: BackupPassphrase) throws(BackupError) -> BackupManifest {
        try BackupFile.open(try contents(of: path), path: path, passphrase: passphrase).0
    }

    static func contents(of path: String) throws(BackupError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path: path, reason: "cannot be read") }
        return Array(data)
    }
}
