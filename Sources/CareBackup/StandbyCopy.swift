import CarePlan
import Crypto
import Foundation
import PrivateFiles
import Synchronization

/// A household device's copy of its primary's store and identity, kept encrypted in a
/// directory of its own and brought up to date step by step (``StandbyStep``), each step on
/// disk before it is acknowledged. ``export(to:passphrase:now:)`` turns it into a backup file
/// that `caresync restore` takes.
///
/// The directory holds a random key (`key`, 0600), the image at some revision (`base`, sealed
/// whole) and the steps taken since (`log`, each appended sealed and synced); when the log
/// outgrows the base, the base is written anew and the log emptied. See ``StandbyFiles`` for
/// the format and what a crash at any point leaves.
public final class StandbyCopy: Sendable {
    /// What the copy holds, in figures.
    public struct Status: Sendable, Hashable {
        public var revision: Int
        public var bytes: Int
        public var withIdentity: Bool
        /// Steps in the log since the base was last written.
        public var steps: Int
    }

    private struct State {
        var image: [UInt8]
        var held: StandbyHeld
        var identity: IdentityFiles?
        var files: StandbyFiles.Loaded
    }

    public let directory: String
    private let files: StandbyFiles
    private let state: Mutex<State>

    /// The copy in `directory`, made (0700, with a new key) if there is none; a step torn
    /// by a crash is dropped.
    public init(directory: String) throws(StandbyError) {
        self.directory = directory
        files = try StandbyFiles(directory: directory, create: true)
        let loaded = try files.load(repair: true)
        state = Mutex(State(image: loaded.image, held: loaded.held, identity: loaded.identity, files: loaded))
    }

    /// The copy in `directory` as it is now, for reading only (another process may be
    /// keeping it).
    public static func read(from directory: String) throws(StandbyError) -> (image: [UInt8], held: StandbyHeld, identity: IdentityFiles?) {
        let loaded = try StandbyFiles(directory: directory, create: false).load(repair: false)
        guard !loaded.image.isEmpty else { throw .empty(path: directory) }
        return (loaded.image, loaded.held, loaded.identity)
    }

    /// What the copy holds, as the primary is told at each connection.
    public var held: StandbyHeld { state.withLock { $0.held } }

    public var status: Status {
        state.withLock { Status(revision: $0.held.revision, bytes: $0.image.count, withIdentity: $0.identity != nil, steps: $0.files.steps) }
    }

    /// Takes `step`: checks that it applies to the image held and makes the image its digest
    /// names, then keeps it on disk (synced) before returning.
    public func apply(_ step: StandbyStep) throws(StandbyError) {
        try state.withLock { (state: inout State) throws(StandbyError) in
            let image = try step.apply(to: state.image, baseSHA256: state.held.sha256)
            let identity = step.identity ?? state.identity
            let newImage = StoreImage(revision: step.revision, pageSize: step.pageSize, bytes: image)
            state.files = try files.keep(step, image: newImage, identity: identity, after: state.files)
            state.image = image
            state.identity = identity
            state.held = StandbyHeld(newImage, identityDigest: identity?.digest ?? [])
        }
    }

    /// Writes the copy as a backup file at `path`, sealed under `passphrase`, with the
    /// primary's identity if the copy has it.
    @discardableResult
    public static func export(from directory: String, to path: String, passphrase: BackupPassphrase, now: Date) async throws -> BackupManifest {
        let copy = try read(from: directory)
        let backup = try await StoreBackup.inScratch { database in
            guard try PrivateFiles.createOnce(database, contents: copy.image) else { throw StandbyError.damaged(path: database, reason: "exists") }
            return try await StoreBackup.make(fromCopy: database, identity: copy.identity, now: now)
        }
        try backup.write(to: path, passphrase: passphrase)
        return backup.manifest
    }
}
