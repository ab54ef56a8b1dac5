import Crypto
import Foundation
import _CryptoExtras

/// The backup file's format, version 1 (all integers big-endian):
///
/// | bytes | field |
/// | --- | --- |
/// | 8 | `CSBACKUP` |
/// | 2 | format version: 1 |
/// | 1 | key derivation: 1, scrypt |
/// | 1 | scrypt's log₂ N |
/// | 4 | scrypt's r |
/// | 4 | scrypt's p |
/// | 16 | salt |
/// | 16 | key check: HMAC-SHA256 of bytes 0–35 under the check key, first 16 bytes |
/// | 8 | the sealed payload's length |
/// | n | the payload sealed with ChaChaPoly (12-byte nonce, ciphertext, 16-byte tag), the 60 bytes before it authenticated with it |
///
/// scrypt turns the passphrase and salt into 64 bytes: the first 32 are the payload's key, the
/// last 32 the check key, so a wrong passphrase is told apart from an altered file without
/// the check revealing anything of the payload's key. The payload is the manifest's length
/// (4 bytes), the manifest (JSON), then each file of the manifest in its order.
enum BackupFile {
    static let magic = Array("CSBACKUP".utf8)
    static let format = 1
    static let headerSize = 60

    /// scrypt's cost: N = 2^logN, block size r, parallelism p. The default takes 32 MiB.
    struct Cost: Sendable, Hashable {
        var logN: UInt8 = 15
        var r: UInt32 = 8
        var p: UInt32 = 1
    }

    /// `manifest` and the files' bytes, in the manifest's order, sealed under `passphrase`.
    static func seal(_ manifest: BackupManifest, files: [[UInt8]], passphrase: BackupPassphrase, cost: Cost = Cost()) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let manifestBytes = Array(try encoder.encode(manifest))
        var payload = bytes(of: UInt32(manifestBytes.count)) + manifestBytes
        for file in files { payload += file }
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        var header = magic + bytes(of: UInt16(format)) + [1, cost.logN] + bytes(of: cost.r) + bytes(of: cost.p) + salt
        let (key, check) = try keys(passphrase, salt: salt, cost: cost)
        header += Array(HMAC<SHA256>.authenticationCode(for: header, using: check)).prefix(16)
        header += bytes(of: UInt64(12 + payload.count + 16))  // nonce, ciphertext, tag
        let box = try ChaChaPoly.seal(payload, using: key, authenticating: header)
        return header + Array(box.combined)
    }

    /// The manifest and files of the backup `data` (read from `path`, named in errors).
    static func open(_ data: [UInt8], path: String, passphrase: BackupPassphrase) throws(BackupError) -> (BackupManifest, [String: [UInt8]]) {
        guard data.count >= magic.count + 2, Array(data.prefix(magic.count)) == magic else { throw .notABackup(path: path) }
        let version = Int(number(data, at: 8, size: 2))
        guard version <= format else { throw .newerFormat(path: path, format: version, supported: format) }
        guard version == format, data.count >= 12, data[10] == 1 else { throw .damaged(path: path, reason: "an unknown key derivation") }
        guard data.count >= headerSize else { throw .truncated(path: path, expected: headerSize, found: data.count) }
        let expected = headerSize + Int(clamping: number(data, at: 52, size: 8))
        guard data.count >= expected else { throw .truncated(path: path, expected: expected, found: data.count) }
        guard data.count == expected else { throw .damaged(path: path, reason: "\(data.count - expected) bytes after its end") }
        let cost = Cost(logN: data[11], r: UInt32(number(data, at: 12, size: 4)), p: UInt32(number(data, at: 16, size: 4)))
        guard cost.logN <= 22, cost.r <= 32, cost.p <= 16 else { throw .damaged(path: path, reason: "an implausible scrypt cost") }
        let (key, check): (SymmetricKey, SymmetricKey)
        do {
            (key, check) = try keys(passphrase, salt: Array(data[20..<36]), cost: cost)
        } catch {
            throw .damaged(path: path, reason: "its key cannot be derived: \(error)")
        }
        guard Array(HMAC<SHA256>.authenticationCode(for: data[0..<36], using: check)).prefix(16).elementsEqual(data[36..<52]) else {
            throw .wrongPassphrase(path: path)
        }
        let payload: [UInt8]
        do {
            let box = try ChaChaPoly.SealedBox(combined: data[headerSize...])
            payload = Array(try ChaChaPoly.open(box, using: key, authenticating: data[0..<headerSize]))
        } catch {
            throw .damaged(path: path, reason: "it does not authenticate")
        }
        return try contents(payload, path: path)
    }

    /// The manifest and the files it lists, each checked against its size and SHA-256.
    private static func contents(_ payload: [UInt8], path: String) throws(BackupError) -> (BackupManifest, [String: [UInt8]]) {
        let length = payload.count >= 4 ? Int(number(payload, at: 0, size: 4)) : Int.max
        guard length <= payload.count - 4 else { throw .damaged(path: path, reason: "its manifest is cut short") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let manifest = try? decoder.decode(BackupManifest.self, from: Data(payload[4..<(4 + length)])) else {
            throw .damaged(path: path, reason: "its manifest cannot be read")
        }
        var files: [String: [UInt8]] = [:]
        var offset = 4 + length
        for file in manifest.files {
            guard file.size >= 0, file.size <= payload.count - offset else { throw .damaged(path: path, reason: "\(file.name) is cut short") }
            let bytes = Array(payload[offset..<(offset + file.size)])
            guard hex(SHA256.hash(data: bytes)) == file.sha256 else { throw .damaged(path: path, reason: "\(file.name) does not match its checksum") }
            files[file.name] = bytes
            offset += file.size
        }
        guard offset == payload.count else { throw .damaged(path: path, reason: "bytes beyond its files") }
        return (manifest, files)
    }

    private static func keys(_ passphrase: BackupPassphrase, salt: [UInt8], cost: Cost) throws -> (SymmetricKey, SymmetricKey) {
        let derived = try KDF.Scrypt.deriveKey(
            from: passphrase.bytes, salt: salt, outputByteCount: 64, rounds: 1 << Int(cost.logN), blockSize: Int(cost.r),
            parallelism: Int(cost.p))
        let bytes = derived.withUnsafeBytes { Array($0) }
        return (SymmetricKey(data: bytes[0..<32]), SymmetricKey(data: bytes[32..<64]))
    }

    static func hex<D: Digest>(_ digest: D) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    private static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    private static func number(_ data: [UInt8], at offset: Int, size: Int) -> UInt64 {
        data[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
