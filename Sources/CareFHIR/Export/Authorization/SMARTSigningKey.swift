import Crypto
import Foundation

/// The P-384 key a backend service signs its SMART client assertions with (ES384), and the
/// public JWK Set that registers it with a FHIR server's authorization server.
public struct SMARTSigningKey: Sendable {
    /// The private key's raw scalar (the key type itself is not `Sendable`).
    private let raw: Data
    /// The key's id: its JWK thumbprint (RFC 7638), which each assertion names as `kid`.
    public let keyID: String

    init(_ key: P384.Signing.PrivateKey) {
        raw = key.rawRepresentation
        keyID = Base64URL.encode(SHA256.hash(data: Self.thumbprintInput(key.publicKey)))
    }

    /// A new random key.
    public static func generate() -> SMARTSigningKey { SMARTSigningKey(P384.Signing.PrivateKey()) }

    /// The key in PEM (PKCS #8 or SEC 1).
    ///
    /// - Throws: ``FHIRExportError/noToken(_:)`` naming `source` if it is not a P-384 key.
    public init(pem: String, source: String) throws(FHIRExportError) {
        guard let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) else {
            throw .noToken("\(source) holds no P-384 private key in PEM")
        }
        self.init(key)
    }

    /// The key in the file at `path`.
    public init(file path: String) throws(FHIRExportError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .noToken("cannot read the SMART key \(path)") }
        try self.init(pem: text, source: path)
    }

    private var key: P384.Signing.PrivateKey {
        // Made from a valid key's own bytes.
        try! P384.Signing.PrivateKey(rawRepresentation: raw)  // swiftlint:disable:this force_try
    }

    /// The private key in PKCS #8 PEM, for its owner's file alone.
    public var pemRepresentation: String { key.pemRepresentation }

    /// The public key as a JWK Set, to register the client with a server.
    public var jwks: Data {
        let (x, y) = Self.coordinates(key.publicKey)
        let jwk = ["kty": "EC", "crv": "P-384", "x": x, "y": y, "kid": keyID, "alg": "ES384", "use": "sig"]
        // Encoding strings cannot fail.
        return try! JSONSerialization.data(withJSONObject: ["keys": [jwk]], options: [.sortedKeys, .withoutEscapingSlashes])  // swiftlint:disable:this force_try
    }

    /// `input`'s ES384 signature as JWS writes it: r and s, 48 bytes each.
    func sign(_ input: Data) throws(FHIRExportError) -> Data {
        do {
            return try key.signature(for: input).rawRepresentation
        } catch {
            throw .noToken("the SMART key cannot sign: \(error)")
        }
    }

    /// The public key's x and y in base64url.
    private static func coordinates(_ key: P384.Signing.PublicKey) -> (String, String) {
        let point = key.x963Representation.dropFirst()  // 0x04, then x and y
        return (Base64URL.encode(point.prefix(48)), Base64URL.encode(point.suffix(48)))
    }

    /// The JWK's required members in lexicographic order, without whitespace (RFC 7638 section 3).
    private static func thumbprintInput(_ key: P384.Signing.PublicKey) -> Data {
        let (x, y) = coordinates(key)
        return Data(#"{"crv":"P-384","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8)
    }
}
