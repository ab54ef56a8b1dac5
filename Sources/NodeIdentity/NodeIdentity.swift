import Crypto
import Foundation
import Glibc
import PrivateFiles
import SwiftASN1
import X509

/// A node's persistent identity: a P-256 key pair and a self-signed certificate, made on
/// first start and kept, readable by its owner only (0600), in one file in the node's state
/// directory (0700).
/// Its fingerprint, the SHA-256 of the certificate's DER encoding (as Syncthing's device
/// ids), is what other nodes pin and what people compare.
public struct NodeIdentity: Sendable {
    public let privateKey: Certificate.PrivateKey
    public let certificate: Certificate
    /// The certificate's DER encoding.
    public let certificateDER: [UInt8]

    /// SHA-256 of the certificate, 64 lowercase hex digits.
    public let fingerprint: String

    init(privateKey: Certificate.PrivateKey, certificate: Certificate, certificateDER: [UInt8]) {
        self.privateKey = privateKey
        self.certificate = certificate
        self.certificateDER = certificateDER
        fingerprint = Self.fingerprint(ofDER: certificateDER)
    }

    /// The fingerprint as people read it aloud: groups of four, upper case.
    public var displayFingerprint: String { Self.display(fingerprint) }

    /// The fingerprint of a certificate in DER: SHA-256, 64 lowercase hex digits.
    public static func fingerprint(ofDER der: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: SHA256.hash(data: der).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// A fingerprint as people read it aloud: groups of four, upper case.
    public static func display(_ fingerprint: String) -> String {
        let hex = Array(fingerprint.uppercased())
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<min($0 + 4, hex.count)]) }
            .joined(separator: "-")
    }

    /// The one file that holds key and certificate, so that they are made and kept as a unit.
    public static let file = "identity.pem"
    /// The two files of identities made before that file (migrated on first load).
    static let legacyKeyFile = "identity-key.pem"
    static let legacyCertificateFile = "identity-certificate.pem"

    /// The identity kept in `directory`, made there first if there is none.
    ///
    /// The directory is made, or narrowed, to 0700. A new identity is written in one piece
    /// (`PrivateFiles.createOnce(_:contents:)`): a node killed while it makes its identity
    /// has either none, and makes one on its next start, or a whole one; never a copy of its
    /// key that others can read. Two processes starting at once end up with the same identity.
    /// A pair of files from an earlier version is moved into the one file; half of such a pair
    /// (the key, without the certificate that was to follow it) was never used, and is replaced.
    ///
    /// - Parameters:
    ///   - directory: where the identity is kept (beside the store, or a companion's state directory).
    ///   - name: the certificate's common name for a new identity, such as "Kitchen tablet".
    ///   - file: the file's name in `directory`: a node's identity is ``file``; another
    ///     identity it keeps (a primary's relay identity) has a name of its own.
    ///   - now: the start of a new certificate's validity.
    public static func loadOrCreate(
        in directory: String, name: String, file: String = file, now: Date = Date()
    ) throws(IdentityError) -> NodeIdentity {
        let path = directory + "/" + file
        do {
            try PrivateFiles.makeDirectory(directory, own: true)
            try PrivateFiles.removeLeftovers(of: path)
            if let identity = try load(path) { return identity }
            let identity = try (file == Self.file ? legacy(in: directory) : nil) ?? create(name: name, now: now)
            if try !PrivateFiles.createOnce(path, contents: Array(identity.pem().utf8)) {
                // Another process made one first: use it.
                guard let theirs = try load(path) else { throw IdentityError.unreadable(path: path, reason: "vanished") }
                return theirs
            }
            for legacyFile in [legacyKeyFile, legacyCertificateFile] { unlink(directory + "/" + legacyFile) }
            return identity
        } catch let error as PrivateFileError {
            throw .unwritable(error.description)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: String(describing: error))
        }
    }

    /// A new identity valid from a day before `now` for twenty years.
    public static func create(name: String, now: Date) throws(IdentityError) -> NodeIdentity {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        do {
            let subject = try DistinguishedName { CommonName(name) }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(),
                publicKey: key.publicKey,
                notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(20 * 365 * 86_400),
                issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    KeyUsage(digitalSignature: true)
                    try ExtendedKeyUsage([.serverAuth, .clientAuth])
                },
                issuerPrivateKey: key)
            return NodeIdentity(privateKey: key, certificate: certificate, certificateDER: try der(certificate))
        } catch {
            throw .cannotCreate(String(describing: error))
        }
    }

    /// The identity in `path`, or nil if there is no such file.
    private static func load(_ path: String) throws(IdentityError) -> NodeIdentity? {
        guard let text = try readText(path) else { return nil }
        do {
            let documents = try PEMDocument.parseMultiple(pemString: text)
            guard let key = documents.first(where: { $0.discriminator.hasSuffix("PRIVATE KEY") }),
                  let certificate = documents.first(where: { $0.discriminator == "CERTIFICATE" })
            else { throw IdentityError.unreadable(path: path, reason: "it needs a private key and a certificate") }
            return try identity(key: Certificate.PrivateKey(pemDocument: key), certificate: Certificate(pemDocument: certificate), path: path)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: String(describing: error))
        }
    }

    /// An identity in the two files of an earlier version, if both are there.
    private static func legacy(in directory: String) throws(IdentityError) -> NodeIdentity? {
        let keyPath = directory + "/" + legacyKeyFile
        do {
            // An unreadable key is an error, not a reason to make a new identity and delete it.
            guard let key = try readText(keyPath), let certificate = try readText(directory + "/" + legacyCertificateFile)
            else { return nil }
            return try identity(
                key: Certificate.PrivateKey(pemEncoded: key), certificate: Certificate(pemEncoded: certificate), path: keyPath)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .unreadable(path: keyPath, reason: String(describing: error))
        }
    }

    /// The text of the file at `path`; `nil` only if there is no such file.
    private static func readText(_ path: String) throws(IdentityError) -> String? {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            throw .unreadable(path: path, reason: (error as NSError).localizedFailureReason ?? "not readable as text")
        }
    }

    private static func identity(key: Certificate.PrivateKey, certificate: Certificate, path: String) throws -> NodeIdentity {
        guard certificate.publicKey == key.publicKey else { throw IdentityError.mismatched(path: path) }
        return NodeIdentity(privateKey: key, certificate: certificate, certificateDER: try der(certificate))
    }

    /// Key and certificate as PEM, key first.
    private func pem() throws -> String {
        try privateKey.serializeAsPEM().pemString + "\n" + certificate.serializeAsPEM().pemString + "\n"
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// Why an identity cannot be used.
public enum IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    case mismatched(path: String)
    case unreadable(path: String, reason: String)
    case unwritable(String)
    case cannotCreate(String)

    public var description: String {
        switch self {
        case .mismatched(let path): "the certificate in \(path) does not belong to its key"
        case .unreadable(let path, let reason): "cannot read the identity in \(path): \(reason)"
        case .unwritable(let reason): "cannot write the identity: \(reason)"
        case .cannotCreate(let reason): "cannot make an identity: \(reason)"
        }
    }
}
