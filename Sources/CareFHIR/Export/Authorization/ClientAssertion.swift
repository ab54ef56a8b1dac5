import Foundation

/// The signed JWT a backend service proves itself with at a token endpoint (SMART Backend
/// Services, `private_key_jwt`): issuer and subject its client id, audience the endpoint,
/// expiring within five minutes, with an id never used again.
struct ClientAssertion {
    private struct Header: Encodable {
        var alg = "ES384"
        var kid: String
        var typ = "JWT"
    }

    private struct Claims: Encodable {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int
        var jti: String
    }

    /// The `client_assertion_type` of a form that carries one.
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// How long an assertion is good for: under the five minutes a server accepts.
    static let lifetime: TimeInterval = 240

    /// The assertion in JWS compact form.
    static func make(clientID: String, audience: String, key: SMARTSigningKey, now: Date) throws(FHIRExportError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = Claims(iss: clientID, sub: clientID, aud: audience, exp: Int(now.addingTimeInterval(lifetime).timeIntervalSince1970),
                            jti: UUID().uuidString)
        // Strings and integers always encode.
        let header = try! encoder.encode(Header(kid: key.keyID))  // swiftlint:disable:this force_try
        let payload = try! encoder.encode(claims)  // swiftlint:disable:this force_try
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(try key.sign(Data(input.utf8)))
    }
}
