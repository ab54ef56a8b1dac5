import Crypto
import Foundation
import Hummingbird
import Clocks

/// The one client a ``FHIRTestServer`` gives access tokens to, as a FHIR server's
/// administrator registers a backend service: its id and the public key it signs with.
public struct SMARTClientRegistration: Sendable {
    public var clientID: String
    /// The public half of the key the client signs its assertions with (ES384).
    public var key: P384.Signing.PublicKey {
        // Kept as bytes: the key type is not Sendable.
        get { try! P384.Signing.PublicKey(x963Representation: publicKey) }  // swiftlint:disable:this force_try
        set { publicKey = newValue.x963Representation }
    }
    private var publicKey: Data
    /// The key's id, which an assertion's header must name (`kid`).
    public var keyID: String
    /// How long an access token lasts, in seconds.
    public var tokenLifetime: Int

    public init(clientID: String, key: P384.Signing.PublicKey, keyID: String, tokenLifetime: Int = 300) {
        self.clientID = clientID
        publicKey = key.x963Representation
        self.keyID = keyID
        self.tokenLifetime = tokenLifetime
    }

    /// The registration of the first P-384 key of a JWK Set (as `caresync fhir smart-key` prints).
    public init(clientID: String, jwks: Data, tokenLifetime: Int = 300) throws {
        let keys = try JSONDecoder().decode(OAuthDocument.KeySet.self, from: jwks).keys ?? []
        guard let jwk = keys.first(where: { $0.kty == "EC" && $0.crv == "P-384" }),
              let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode), let kid = jwk.kid
        else { throw Refusal(status: 400, text: "the JWK Set holds no P-384 key with x, y and kid") }
        self.init(clientID: clientID, key: try P384.Signing.PublicKey(x963Representation: [0x04] + x + y), keyID: kid, tokenLifetime: tokenLifetime)
    }
}

/// SMART Backend Services' authorization server: its part of the discovery document, access
/// tokens for the registered client's signed assertions (client credentials,
/// `private_key_jwt`), and the check of every FHIR request's token.
struct SMARTAuthority: Sendable {
    static let configurationPath = "/fhir/.well-known/smart-configuration"
    static let tokenPath = "/auth/token"
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    let registration: SMARTClientRegistration
    let clock: any WallClock
    /// Each token issued, and when it expires.
    private(set) var issued: [String: Date] = [:]
    private var assertions: ClientAssertionCheck

    init(registration: SMARTClientRegistration, clock: any WallClock) {
        self.registration = registration
        self.clock = clock
        assertions = ClientAssertionCheck(registration: registration, clock: clock)
    }

    /// Adds the members of the SMART configuration that backend services need.
    func describe(in configuration: inout SMARTConfiguration) {
        configuration.grantTypesSupported = SMARTConfiguration.union(configuration.grantTypesSupported, ["client_credentials"])
        configuration.tokenEndpointAuthMethodsSupported = SMARTConfiguration.union(configuration.tokenEndpointAuthMethodsSupported, ["private_key_jwt"])
        configuration.tokenEndpointAuthSigningAlgValuesSupported = SMARTConfiguration.union(configuration.tokenEndpointAuthSigningAlgValuesSupported, ["ES384"])
        configuration.scopesSupported = SMARTConfiguration.union(configuration.scopesSupported, ["system/*.read", "system/*.write"])
        configuration.capabilities = SMARTConfiguration.union(configuration.capabilities, ["client-confidential-asymmetric"])
    }

    /// Every token issued so far expires now.
    mutating func expireAll() {
        let now = clock.now
        issued = issued.mapValues { min($0, now) }
    }

    /// Why a FHIR request with this `Authorization` header is refused, if it is.
    func refusal(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "the test server needs an access token" }
        guard let expiry = issued[String(authorization.dropFirst("Bearer ".count))] else { return "the access token is unknown" }
        return expiry > clock.now ? nil : "the access token has expired"
    }

    /// An access token for a signed client assertion, or the OAuth error saying why not.
    mutating func token(for form: OAuthDocument.TokenForm, audience: String) -> Response {
        guard form.grantType == "client_credentials" else {
            return .oauthError(400, "unsupported_grant_type", "grant_type must be client_credentials")
        }
        guard form.clientAssertionType == Self.assertionType, let assertion = form.clientAssertion else {
            return .oauthError(400, "invalid_request", "a client_assertion of type \(Self.assertionType) is needed")
        }
        let scopes = (form.scope ?? "").split(separator: " ")
        guard !scopes.isEmpty, scopes.allSatisfy({ $0.hasPrefix("system/") }) else {
            return .oauthError(400, "invalid_scope", "scope must name system/ scopes only")
        }
        if let reason = assertions.refusal(of: assertion, audience: audience) { return .oauthError(401, "invalid_client", reason) }
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        issued[token] = clock.now.addingTimeInterval(TimeInterval(registration.tokenLifetime))
        return .oauth(200, OAuthDocument.Token(
            accessToken: token, tokenType: "bearer", expiresIn: registration.tokenLifetime, scope: form.scope ?? ""))
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 7515's base64url).
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}
