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
    /// files: its key and certificates and its health record sign-in, not its locks or
    /// launches in progress.
    public static func make(of store: CarePlanStore, identityDirectory: String?, now: Date) async throws -> StoreBackup {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-backup-\(UUID().uuidString)").path
        try PrivateFiles.makeDirectory(scratch, own: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let copy = scratch + "/" + BackupManifest.storeFile
        try await store.copy(to: copy)
        // The figures are the copy's own: what the manifest promises is what the file holds.
        let summary = try await CarePlanStore(path: copy).summary()
        var named = [(BackupManifest.storeFile, try contents(of: copy))]
        if let identityDirectory {
            named += try identityFiles(in: identityDirectory).map { (BackupManifest.identityFolder + $0, try contents(of: identityDirectory + "/" + $0)) }
        }
        let files = named.map { BackupManifest.File(name: $0.0, size: $0.1.count, sha256: BackupFile.hex(SHA256.hash(data: $0.1))) }
        return StoreBackup(
            // In whole seconds, as the manifest keeps it.
            manifest: BackupManifest(
                format: BackupFile.format, createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), store: summary, withIdentity: identityDirectory != nil, files: files),
            files: named.map(\.1))
    }

    /// Seals the backup under `passphrase` and writes it to `path` in one piece (0600): the
    /// file appears whole or not at all.
    public func write(to path: String, passphrase: BackupPassphrase) throws {
        try write(to: path, passphrase: passphrase, cost: BackupFile.Cost())
    }

    func write(to path: String, passphrase: BackupPassphrase, cost: BackupFile.Cost) throws {
        let sealed = try BackupFile.seal(manifest, files: files, passphrase: passphrase, cost: cost)
        do {
            try PrivateFiles.replace(path, contents: sealed)
        } catch {
            throw BackupError.file(path: path, reason: "\(error)")
        }
    }

    /// The manifest of the backup at `path`, every file checked, nothing restored.
    public static func inspect(_ path: String, passphrase: BackupPassphrase) throws(BackupError) -> BackupManifest {
        try BackupFile.open(try contents(of: path), path: path, passphrase: passphrase).0
    }

    /// The identity directory's files a backup takes: not its locks, launches in progress or
    /// a crash's leftovers.
    static func identityFiles(in directory: String) throws(BackupError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .file(path: directory, reason: "cannot be listed: \(error.localizedDescription)")
        }
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix(".") && !name.hasSuffix(".lock") && !name.hasSuffix(".pending")
                && FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    static func contents(of path: String) throws(BackupError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path: path, reason: "cannot be read") }
        return Array(data)
    }
}
