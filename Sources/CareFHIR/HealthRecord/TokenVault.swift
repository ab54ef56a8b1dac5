import Crypto
import Foundation
import PrivateFiles

/// Where a primary keeps its health record connection: sealed (ChaChaPoly) under a key of
/// its own, both files 0600 beside its identity, so that only the primary's user can read
/// them and the sealed file reads as no text. Launches waiting for their callback are kept
/// the same way (``PendingLaunches``).
public struct TokenVault: Sendable {
    /// The directory: the primary's identity directory.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    var keyPath: String { directory + "/health-record.key" }
    var connectionPath: String { directory + "/health-record.sealed" }

    /// The connection kept, if there is one.
    public func connection() throws(HealthRecordError) -> HealthRecordConnection? {
        try open(HealthRecordConnection.self, at: connectionPath)
    }

    /// Keeps `connection`, replacing the one kept before.
    public func keep(_ connection: HealthRecordConnection) throws(HealthRecordError) {
        try seal(connection, at: connectionPath)
    }

    /// Forgets the connection (the key stays, for the next).
    public func forget() throws(HealthRecordError) {
        guard unlink(connectionPath) == 0 || errno == ENOENT else { throw .vault("cannot remove \(connectionPath): errno \(errno)") }
    }

    /// The value sealed in `path`, or `nil` if there is no such file.
    func open<Value: Decodable>(_ type: Value.Type, at path: String) throws(HealthRecordError) -> Value? {
        guard let sealed = FileManager.default.contents(atPath: path) else { return nil }
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed)
            let data = try ChaChaPoly.open(box, using: try key(), authenticating: Data(Self.context.utf8))
            return try JSONDecoder().decode(Value.self, from: data)
        } catch let error as HealthRecordError {
            throw error
        } catch {
            throw .vault("\(path) cannot be opened with \(keyPath): \(error)")
        }
    }

    /// Seals `value` into `path` in one step.
    func seal<Value: Encodable>(_ value: Value, at path: String) throws(HealthRecordError) {
        do {
            let data = try JSONEncoder().encode(value)
            let box = try ChaChaPoly.seal(data, using: try key(), authenticating: Data(Self.context.utf8))
            try PrivateFiles.replace(path, contents: [UInt8](box.combined))
        } catch let error as HealthRecordError {
            throw error
        } catch {
            throw .vault("\(path) cannot be written: \(error)")
        }
    }

    /// Makes the vault's directory (0700) if there is none.
    func makeDirectory() throws(HealthRecordError) {
        do {
            try PrivateFiles.makeDirectory(directory, own: true)
        } catch {
            throw .vault("\(directory) cannot be made: \(error)")
        }
    }

    /// The vault's key, made on first use.
    private func key() throws(HealthRecordError) -> SymmetricKey {
        try makeDirectory()
        do {
            _ = try PrivateFiles.createOnce(keyPath, contents: SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) })
        } catch {
            throw .vault("\(keyPath) cannot be made: \(error)")
        }
        guard let bytes = FileManager.default.contents(atPath: keyPath), bytes.count == 32 else {
            throw .vault("\(keyPath) does not hold a 256-bit key")
        }
        return SymmetricKey(data: bytes)
    }

    /// What a sealed file is bound to: a file of another kind or version does not open.
    private static let context = "caresync health record v1"
}
