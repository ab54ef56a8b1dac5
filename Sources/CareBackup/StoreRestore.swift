import CarePlanStore
import Foundation
import PrivateFiles

/// Restores a backup as a store (and the primary's identity, if the backup has it), on this
/// machine or a new one. Everything is checked before anything is written: the passphrase,
/// every file against its checksum, SQLite's integrity check of the database and its figures
/// against the manifest. Then the store takes its place in one step.
public enum StoreRestore {
    /// Restores the backup at `file` as the store at `storePath`, its identity files into
    /// `identityDirectory`; replaces a store (or identity) there only if `replace`.
    ///
    /// - Throws: ``BackupError``; nothing is written at `storePath` or `identityDirectory` then.
    @discardableResult
    public static func restore(
        _ file: String, passphrase: BackupPassphrase, storePath: String, identityDirectory: String, replace: Bool
    ) async throws -> BackupManifest {
        let (manifest, files) = try BackupFile.open(try StoreBackup.contents(of: file), path: file, passphrase: passphrase)
        let fileManager = FileManager.default
        if !replace {
            if fileManager.fileExists(atPath: storePath) { throw BackupError.storeExists(path: storePath) }
            if manifest.withIdentity, fileManager.fileExists(atPath: identityDirectory) { throw BackupError.storeExists(path: identityDirectory) }
        }
        guard let database = files[BackupManifest.storeFile] else { throw BackupError.damaged(path: file, reason: "it holds no store") }
        let staged = (storePath as NSString).deletingLastPathComponent + "/.restoring-\(UUID().uuidString).sqlite"
        defer { removeDatabase(staged) }
        do {
            guard try PrivateFiles.createOnce(staged, contents: database) else { throw BackupError.file(path: staged, reason: "exists") }
        } catch let error as BackupError {
            throw error
        } catch {
            throw BackupError.file(path: storePath, reason: "cannot be written: \(error)")
        }
        try await check(staged, against: manifest, file: file)
        if manifest.withIdentity { try placeIdentity(files, in: identityDirectory) }
        // The old store's log must not be read as the new one's.
        removeDatabase(storePath)
        guard rename(staged, storePath) == 0 else { throw BackupError.file(path: storePath, reason: "cannot be put in place: errno \(errno)") }
        _ = try? PrivateFiles.sync((storePath as NSString).deletingLastPathComponent)
        return manifest
    }

    /// The staged database opens as a store, whole, with the figures the manifest gives.
    private static func check(_ staged: String, against manifest: BackupManifest, file: String) async throws {
        let store = try await CarePlanStore(path: staged)
        let problems = try await store.integrityProblems()
        guard problems.isEmpty else { throw BackupError.damaged(path: file, reason: "its store fails SQLite's integrity check: \(problems.prefix(3))") }
        let summary = try await store.summary()
        guard summary == manifest.store else {
            throw BackupError.damaged(path: file, reason: "its store holds other figures than its manifest (\(summary) instead of \(manifest.store))")
        }
    }

    /// The identity files written into a new directory beside `directory`, which then takes
    /// its place (the old one, if any, removed).
    private static func placeIdentity(_ files: [String: [UInt8]], in directory: String) throws {
        let staged = directory + ".restoring-\(UUID().uuidString)"
        do {
            try PrivateFiles.makeDirectory(staged, own: true)
            for (name, bytes) in files where name.hasPrefix(BackupManifest.identityFolder) {
                let base = String(name.dropFirst(BackupManifest.identityFolder.count))
                guard !base.isEmpty, !base.contains("/"), base != "..", base != "." else { continue }
                _ = try PrivateFiles.createOnce(staged + "/" + base, contents: bytes)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staged)
            throw BackupError.file(path: directory, reason: "cannot be written: \(error)")
        }
        let old = directory + ".replaced-\(UUID().uuidString)"
        let hadOne = FileManager.default.fileExists(atPath: directory)
        guard !hadOne || rename(directory, old) == 0, rename(staged, directory) == 0 else {
            try? FileManager.default.removeItem(atPath: staged)
            throw BackupError.file(path: directory, reason: "cannot be put in place: errno \(errno)")
        }
        if hadOne { try? FileManager.default.removeItem(atPath: old) }
    }

    private static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
