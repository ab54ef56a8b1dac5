import Crypto
import Foundation
import SwiftASN1
import X509

/// A node's persistent identity: a P-256 key pair and a self-signed certificate, made on
/// first start and kept, readable by its owner only (0600), in the node's state directory.
/// Its fingerprint, the SHA-256 of the certificate's DER encoding (as Syncthing's device
/// ids), is what other nodes pin and what people compare.
public struct NodeIdentity: Sendable {
    public let privateKey: Certificate.PrivateKey
    public let certificate: Certificate
    /// The certificate's DER encoding.
    public let certificateDER: [UInt8]

    /// SHA-256 of the certificate, 64 lowercase hex digits.
    public var fingerprint: String { Self.fingerprint(ofDER: certificateDER) }

    /// The fingerprint as people read it aloud: groups of four, upper case.
    public var displayFingerprint: String { Self.display(fingerprint) }

    /// The fingerprint of a certificate in DER: SHA-256, 64 lowercase hex digits.
    public static func fingerprint(ofDER der: [UInt8]) -> String {
        SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
    }

    /// A fingerprint as people read it aloud: groups of four, upper case.
    public static func display(_ fingerprint: String) -> String {
        let hex = Array(fingerprint.uppercased())
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<min($0 + 4, hex.count)]) }
            .joined(separator: "-")
    }

    static let keyFile = "identity-key.pem"
    static let certificateFile = "identity-certificate.pem"

    /// The identity kept in `directory`, made there first if there is none.
    ///
    /// - Parameter name: the certificate's common name for a new identity, such as "Kitchen tablet".
    public static func loadOrCreate(in directory: String, name: String, now: Date = Date()) throws(IdentityError) -> NodeIdentity {
        let keyPath = directory + "/" + keyFile
        let certificatePath = directory + "/" + certificateFile
        let files = FileManager.default
        switch (files.fileExists(atPath: keyPath), files.fileExists(atPath: certificatePath)) {
        case (true, true):
            return try load(keyPath: keyPath, certificatePath: certificatePath)
        case (false, false):
            let identity = try create(name: name, now: now)
            try identity.save(keyPath: keyPath, certificatePath: certificatePath)
            return identity
        default:
            throw .incomplete(directory: directory)
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

    private static func load(keyPath: String, certificatePath: String) throws(IdentityError) -> NodeIdentity {
        do {
            let key = try Certificate.PrivateKey(pemEncoded: String(contentsOfFile: keyPath, encoding: .utf8))
            let certificate = try Certificate(pemEncoded: String(contentsOfFile: certificatePath, encoding: .utf8))
            guard certificate.publicKey == key.publicKey else {
                throw IdentityError.mismatched(keyPath: keyPath, certificatePath: certificatePath)
            }
            return NodeIdentity(privateKey: key, certificate: certificate, certificateDER: try der(certificate))
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .unreadable(path: keyPath, reason: String(describing: error))
        }
    }

    private func save(keyPath: String, certificatePath: String) throws(IdentityError) {
        let directory = (keyPath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let certificatePEM = try certificate.serializeAsPEM().pemString
            let keyPEM = try privateKey.serializeAsPEM().pemString
            for (path, text) in [(keyPath, keyPEM), (certificatePath, certificatePEM)] {
                guard FileManager.default.createFile(
                    atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
                else { throw IdentityError.unwritable(path: path) }
            }
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .unwritable(path: directory)
        }
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// Why an identity cannot be used.
public enum IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    case incomplete(directory: String)
    case mismatched(keyPath: String, certificatePath: String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String)
    case cannotCreate(String)

    public var description: String {
        switch self {
        case .incomplete(let directory):
            "\(directory) holds only half an identity (key or certificate): restore the missing file or remove both"
        case .mismatched(let key, let certificate): "\(certificate) does not belong to the key in \(key)"
        case .unreadable(let path, let reason): "cannot read the identity in \(path): \(reason)"
        case .unwritable(let path): "cannot write the identity to \(path)"
        case .cannotCreate(let reason): "cannot make an identity: \(reason)"
        }
    }
}
