import Crypto
import Foundation
import Clocks

/// The check of a client's signed assertions (`private_key_jwt`), as an authorization server
/// makes it of a registered client: each assertion once.
struct ClientAssertionCheck: Sendable {
    let registration: SMARTClientRegistration
    let clock: any WallClock
    /// The `jti` of every assertion taken: one may not be used twice.
    private var assertionsSeen: Set<String> = []

    init(registration: SMARTClientRegistration, clock: any WallClock) {
        self.registration = registration
        self.clock = clock
    }

    /// Why the client assertion `jwt` is not good for `audience`, if it is not: its header,
    /// signature, issuer and subject, audience, expiry (at most five minutes ahead) and `jti`.
    mutating func refusal(of jwt: String, audience: String) -> String? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Self.decode(OAuthDocument.AssertionHeader.self, parts[0]),
              let claims = Self.decode(OAuthDocument.AssertionClaims.self, parts[1]), let signature = Base64URL.decode(parts[2])
        else { return "the client assertion is not a JWS in compact form" }
        guard header.alg == "ES384" else { return "the client assertion must be signed with ES384" }
        guard header.kid == registration.keyID else { return "the client assertion names another key" }
        guard let ecdsa = try? P384.Signing.ECDSASignature(rawRepresentation: signature),
              registration.key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return "the client assertion's signature does not verify" }
        guard claims.iss == registration.clientID, claims.sub == registration.clientID else {
            return "the client assertion's iss and sub must be the client id"
        }
        guard claims.aud.contains(audience) else { return "the client assertion's aud must be \(audience)" }
        let now = clock.now.timeIntervalSince1970
        guard let expiry = claims.exp, expiry > now, expiry <= now + 300 + 60 else {
            return "the client assertion has expired or lasts more than five minutes"
        }
        guard let jti = claims.jti, !jti.isEmpty, assertionsSeen.insert(jti).inserted else {
            return "the client assertion's jti is missing or was used before"
        }
        return nil
    }

    /// A JWS part, base64url-encoded JSON, as `type`.
    private static func decode<T: Decodable>(_ type: T.Type, _ part: String) -> T? {
        Base64URL.decode(part).flatMap { try? JSONDecoder().decode(type, from: Data($0)) }
    }
}
