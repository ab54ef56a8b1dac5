import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with `S256`: a random verifier kept by the client,
/// and its hash, which the authorization request carries.
struct PKCE: Sendable {
    /// 43 characters of base64url: 256 random bits.
    let verifier: String

    init(verifier: String) {
        self.verifier = verifier
    }

    /// A new verifier.
    static func random() -> PKCE { PKCE(verifier: randomToken()) }

    /// `BASE64URL(SHA256(verifier))`.
    var challenge: String { Base64URL.encode(SHA256.hash(data: Data(verifier.utf8))) }
}

/// 256 random bits in base64url: a `state`, a PKCE verifier.
func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
}
