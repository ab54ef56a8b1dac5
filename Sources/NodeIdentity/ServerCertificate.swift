import Foundation
import Glibc
import PrivateFiles
import SwiftASN1
import X509

/// A certificate for a node's key that names the hosts browsers reach it by (subjectAltName:
/// DNS names and IP addresses), for serving HTTPS. The identity's own certificate, which
/// companions pin and which never changes, names no host; browsers match the address they
/// were given against this one. It is kept beside the identity and made again only when the
/// hosts change, so a browser's exception for it lasts.
public struct ServerCertificate: Sendable {
    public let certificate: Certificate
    /// Its DER encoding.
    public let der: [UInt8]
    /// SHA-256 of `der`, 64 lowercase hex digits: what a browser's certificate viewer shows.
    public var fingerprint: String { NodeIdentity.fingerprint(ofDER: der) }

    /// The file it is kept in, in the identity's directory.
    static let file = "server-certificate.pem"

    /// The DNS names and IP addresses it names, sorted.
    public var hosts: [String] {
        let names = (try? certificate.extensions.subjectAlternativeNames) ?? nil
        return (names.map(Array.init) ?? []).compactMap { name -> String? in
            switch name {
            case .dnsName(let dns): dns
            case .ipAddress(let bytes): Self.text(ofAddress: Array(bytes.bytes))
            default: nil
            }
        }.sorted()
    }

    /// The one kept in `directory` if it is `identity`'s and names exactly `hosts` (DNS names
    /// and IP addresses), else a new one, kept there.
    public static func loadOrCreate(
        for identity: NodeIdentity, hosts: [String], in directory: String, now: Date = Date()
    ) throws(IdentityError) -> ServerCertificate {
        let path = directory + "/" + file
        let wanted = Array(Set(hosts)).sorted()
        if let text = try? String(contentsOfFile: path, encoding: .utf8), let kept = try? Certificate(pemEncoded: text),
           kept.publicKey == identity.privateKey.publicKey, kept.notValidAfter > now,
           let existing = try? ServerCertificate(kept), existing.hosts == wanted {
            return existing
        }
        let made = try create(for: identity, hosts: wanted, now: now)
        do {
            try PrivateFiles.replace(path, contents: Array(try made.certificate.serializeAsPEM().pemString.utf8))
        } catch let error as PrivateFileError {
            throw .unwritable(error.description)
        } catch {
            throw .cannotCreate(String(describing: error))
        }
        return made
    }

    /// A new one for `identity`'s key naming `hosts`, valid from a day before `now` for as
    /// long as the identity.
    static func create(for identity: NodeIdentity, hosts: [String], now: Date) throws(IdentityError) -> ServerCertificate {
        do {
            let names = hosts.map { host in
                Self.address(host).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) } ?? .dnsName(host)
            }
            let subject = identity.certificate.subject
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: identity.privateKey.publicKey,
                notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: identity.certificate.notValidAfter,
                issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    KeyUsage(digitalSignature: true)
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: identity.privateKey)
            return try ServerCertificate(certificate)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .cannotCreate(String(describing: error))
        }
    }

    init(_ certificate: Certificate) throws {
        self.certificate = certificate
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        der = serializer.serializedBytes
    }

    /// The bytes of an IPv4 or IPv6 address written as text; `nil` for a name.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// An address's bytes as text.
    static func text(ofAddress bytes: [UInt8]) -> String? {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)).map { _ in String(cString: buffer) }
        }
    }
}
