import CarePlan
import Crypto
import Foundation
import PrivateFiles

/// The files of a standby copy's directory (all integers big-endian):
///
/// - `key`: 32 random bytes, 0600, made with the directory (0700).
/// - `base`: `CSSTANDB`, the format (2 bytes: 1), a generation (16 random bytes), then the
///   payload sealed with ChaChaPoly (nonce, ciphertext, tag), those 26 bytes authenticated
///   with it. The payload: the revision (8 bytes), the page size (4), whether the primary's
///   identity is in it (1), its files (4-byte count, each a name and content, both 4-byte
///   length-prefixed), then the image (4-byte length-prefixed).
/// - `log`: the steps taken since the base was written, each a record: the sealed length (4),
///   the base's generation (16), the step sealed with its generation and its index in the log
///   (8 bytes, from 0) authenticated with it.
///
/// A step is kept by appending its record and syncing the log; once the log would outgrow
/// the base (and 1 MiB), the base is written anew under a new generation instead (to a
/// temporary file, synced, renamed) and the log emptied. A crash leaves either a record cut
/// short at the log's end, dropped when the copy is next opened (its step was never
/// acknowledged), or a log of the previous generation beside a new base, ignored.
struct StandbyFiles: Sendable {
    /// What the files hold, read and checked.
    struct Loaded {
        var image: [UInt8]
        var held: StandbyHeld
        var identity: IdentityFiles?
        var generation: [UInt8]
        var baseBytes: Int
        /// The log's length up to its last whole record of this generation.
        var logBytes: Int
        var steps: Int
    }

    static let magic = Array("CSSTANDB".utf8)
    static let format: UInt16 = 1
    /// The log may grow to the base's size, and at least this much.
    static let minimumLog = 1 << 20

    let directory: String
    /// The key's bytes (a `SymmetricKey` is not `Sendable`).
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    private var basePath: String { directory + "/base" }
    private var logPath: String { directory + "/log" }

    /// Opens the directory's key, making the directory and key if `create` and they are missing.
    init(directory: String, create: Bool) throws(StandbyError) {
        self.directory = directory
        let keyPath = directory + "/key"
        do {
            if create {
                try PrivateFiles.makeDirectory(directory, own: true)
                _ = try PrivateFiles.createOnce(keyPath, contents: Array(SymmetricKey(size: .bits256).withUnsafeBytes(Array.init)))
            }
        } catch {
            throw .damaged(path: directory, reason: "cannot be made: \(error)")
        }
        guard let bytes = FileManager.default.contents(atPath: keyPath), bytes.count == 32 else {
            throw create || FileManager.default.fileExists(atPath: keyPath)
                ? .damaged(path: directory, reason: "its key is missing or not 32 bytes") : .empty(path: directory)
        }
        keyBytes = Array(bytes)
    }

    /// The base with every whole step of its generation applied; with `repair`, a torn or
    /// stale log is cut back to what was read.
    func load(repair: Bool) throws(StandbyError) -> Loaded {
        guard let base = FileManager.default.contents(atPath: basePath).map(Array.init) else {
            return Loaded(image: [], held: StandbyHeld(), identity: nil, generation: [], baseBytes: 0, logBytes: 0, steps: 0)
        }
        var loaded = try readBase(base)
        let log = FileManager.default.contents(atPath: logPath).map(Array.init) ?? []
        var offset = 0
        while log.count - offset >= 20 {
            var header = ByteReader(Array(log[offset..<offset + 20]))
            let length = Int(header.integer(UInt32.self)!)
            let end = offset + 20 + length
            guard Array(log[offset + 4..<offset + 20]) == loaded.generation, end <= log.count else { break }
            let authenticated = loaded.generation + ByteWriter.bytes(of: UInt64(loaded.steps))
            guard let step = (try? open(Array(log[offset + 20..<end]), authenticating: authenticated)).flatMap(Self.decodeStep) else {
                // Only the last record can be torn; one before it was altered.
                if end == log.count { break }
                throw .damaged(path: logPath, reason: "step \(loaded.steps) does not open with the copy's key")
            }
            do {
                loaded.image = try step.apply(to: loaded.image, baseSHA256: loaded.held.sha256)
            } catch {
                throw .damaged(path: logPath, reason: "step \(loaded.steps): \(error)")
            }
            if let identity = step.identity { loaded.identity = identity }
            loaded.held = StandbyHeld(
                StoreImage(revision: step.revision, pageSize: step.pageSize, bytes: loaded.image), identityDigest: loaded.identity?.digest ?? [])
            loaded.steps += 1
            offset = end
        }
        loaded.logBytes = offset
        if repair, offset < log.count { truncate(logPath, Int64(offset)) }
        return loaded
    }

    /// Keeps `step`, which made `image` (with `identity`) from what `loaded` held: appended to
    /// the log, or a new base when the log would outgrow it. Synced when it returns.
    func keep(_ step: StandbyStep, image: StoreImage, identity: IdentityFiles?, after loaded: Loaded) throws(StandbyError) -> Loaded {
        var kept = loaded
        kept.image = image.bytes
        kept.identity = identity
        kept.held = StandbyHeld(image, identityDigest: identity?.digest ?? [])
        let authenticated = loaded.generation + ByteWriter.bytes(of: UInt64(loaded.steps))
        let record = loaded.generation.isEmpty ? [] : seal(Self.encode(step), authenticating: authenticated)
        if loaded.generation.isEmpty || loaded.logBytes + record.count + 20 > max(loaded.baseBytes, Self.minimumLog) {
            let generation = Array(SymmetricKey(size: .bits128).withUnsafeBytes(Array.init))
            let header = Self.magic + ByteWriter.bytes(of: Self.format) + generation
            var payload = ByteWriter()
            payload.integer(UInt64(image.revision))
            payload.integer(UInt32(image.pageSize))
            Self.encode(identity, into: &payload)
            payload.data(image.bytes)
            let base = header + seal(payload.bytes, authenticating: header)
            do {
                try PrivateFiles.replace(basePath, contents: base)
            } catch {
                throw .damaged(path: basePath, reason: "cannot be written: \(error)")
            }
            truncate(logPath, 0)
            kept.generation = generation
            kept.baseBytes = base.count
            kept.logBytes = 0
            kept.steps = 0
            return kept
        }
        try append(ByteWriter.bytes(of: UInt32(record.count)) + loaded.generation + record, at: loaded.logBytes)
        kept.logBytes += 20 + record.count
        kept.steps += 1
        return kept
    }

    private func append(_ record: [UInt8], at offset: Int) throws(StandbyError) {
        let fd = Foundation.open(logPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .damaged(path: logPath, reason: "cannot be opened: errno \(errno)") }
        defer { close(fd) }
        let written = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        // Whatever followed (a stale generation's records, a torn step) goes with the append.
        guard written == record.count, ftruncate(fd, off_t(offset + record.count)) == 0, fsync(fd) == 0 else {
            let code = errno
            ftruncate(fd, off_t(offset))
            throw .damaged(path: logPath, reason: "a step cannot be written: errno \(code)")
        }
        if offset == 0 { _ = try? PrivateFiles.sync(directory) }
    }

    private func truncate(_ path: String, _ length: Int64) {
        let fd = Foundation.open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        ftruncate(fd, off_t(length))
        fsync(fd)
    }

    private func readBase(_ base: [UInt8]) throws(StandbyError) -> Loaded {
        guard base.count > 26, Array(base.prefix(8)) == Self.magic else { throw .damaged(path: basePath, reason: "not a standby copy") }
        var reader = ByteReader(Array(base[8..<10]))
        let format = reader.integer(UInt16.self)!
        guard format == Self.format else { throw .damaged(path: basePath, reason: "format \(format), this CareSync reads \(Self.format)") }
        let header = Array(base.prefix(26))
        guard let payload = try? open(Array(base.dropFirst(26)), authenticating: header) else {
            throw .damaged(path: basePath, reason: "it does not open with the copy's key")
        }
        var fields = ByteReader(payload)
        guard let revision = fields.integer(UInt64.self), let pageSize = fields.integer(UInt32.self),
              let identity = Self.decodeIdentity(&fields), let image = fields.data(), fields.atEnd
        else { throw .damaged(path: basePath, reason: "its content is malformed") }
        let held = StandbyHeld(
            StoreImage(revision: Int(revision), pageSize: Int(pageSize), bytes: image), identityDigest: identity.value?.digest ?? [])
        return Loaded(
            image: image, held: held, identity: identity.value, generation: Array(base[10..<26]), baseBytes: base.count, logBytes: 0, steps: 0)
    }

    private func seal(_ payload: [UInt8], authenticating data: [UInt8]) -> [UInt8] {
        // Sealing with a 256-bit key and a fresh nonce does not fail.
        Array(try! ChaChaPoly.seal(payload, using: key, authenticating: data).combined)
    }

    private func open(_ sealed: [UInt8], authenticating data: [UInt8]) throws -> [UInt8] {
        Array(try ChaChaPoly.open(try ChaChaPoly.SealedBox(combined: sealed), using: key, authenticating: data))
    }

    static func encode(_ step: StandbyStep) -> [UInt8] {
        var writer = ByteWriter()
        writer.data(step.baseSHA256)
        writer.integer(UInt64(step.revision))
        writer.integer(UInt32(step.pageSize))
        writer.integer(UInt32(step.pageCount))
        writer.data(step.sha256)
        writer.integer(step.committedAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? Int64.min)
        encode(step.identity, into: &writer)
        writer.integer(UInt32(step.pages.count))
        for page in step.pages {
            writer.integer(UInt32(page.number))
            writer.data(page.data)
        }
        return writer.bytes
    }

    static func decodeStep(_ bytes: [UInt8]) -> StandbyStep? {
        var reader = ByteReader(bytes)
        guard let base = reader.data(), let revision = reader.integer(UInt64.self), let pageSize = reader.integer(UInt32.self),
              let pageCount = reader.integer(UInt32.self), let sha = reader.data(), let committed = reader.integer(Int64.self),
              let identity = decodeIdentity(&reader), let count = reader.integer(UInt32.self)
        else { return nil }
        var pages: [StandbyStep.Page] = []
        for _ in 0..<count {
            guard let number = reader.integer(UInt32.self), let data = reader.data() else { return nil }
            pages.append(StandbyStep.Page(number: Int(number), data: data))
        }
        guard reader.atEnd else { return nil }
        return StandbyStep(
            baseSHA256: base, revision: Int(revision), pageSize: Int(pageSize), pageCount: Int(pageCount), pages: pages, sha256: sha,
            committedAt: committed == Int64.min ? nil : Date(timeIntervalSince1970: Double(committed) / 1000), identity: identity.value)
    }

    private static func encode(_ identity: IdentityFiles?, into writer: inout ByteWriter) {
        writer.integer(UInt8(identity == nil ? 0 : 1))
        let names = identity?.names ?? []
        writer.integer(UInt32(names.count))
        for name in names {
            writer.string(name)
            writer.data(identity!.files[name]!)
        }
    }

    /// The identity files, present or not (`nil`: malformed).
    private static func decodeIdentity(_ reader: inout ByteReader) -> (value: IdentityFiles?, Void)? {
        guard let present = reader.integer(UInt8.self), let count = reader.integer(UInt32.self) else { return nil }
        var files: [String: [UInt8]] = [:]
        for _ in 0..<count {
            guard let name = reader.string(), let data = reader.data() else { return nil }
            files[name] = data
        }
        return (present == 1 ? IdentityFiles(files) : nil, ())
    }
}
