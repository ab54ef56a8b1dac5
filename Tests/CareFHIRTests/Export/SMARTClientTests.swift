@testable import CareFHIR
import Crypto
import FHIRTestServer
import Foundation
import Synchronization
import Testing
import Clocks
import TestSupport

/// SMART Backend Services against the test server's authorization server: discovery, the
/// signed assertion, reuse, renewal before expiry (on an injected clock) and after a refusal.
struct SMARTClientTests {
    static let emptyTransaction = Data(#"{"resourceType":"Bundle","type":"transaction","entry":[]}"#.utf8)

    /// A server that gives tokens lasting `lifetime` seconds to "caresync" with `key`, judging
    /// assertions and expiries on `clock` (the client's, so that one clock moves both).
    static func server(for key: SMARTSigningKey, lifetime: Int = 300, clock: any WallClock) async throws -> FHIRTestServer {
        var options = FHIRTestServer.Options()
        options.clock = clock
        options.smart = try SMARTClientRegistration(clientID: "caresync", jwks: key.jwks, tokenLifetime: lifetime)
        return try await FHIRTestServer(options: options)
    }

    static func poster(_ server: FHIRTestServer, key: SMARTSigningKey, clock: ManualClock) throws
        -> (TransactionPoster, SMARTBackendClient) {
        let client = SMARTBackendClient(fhirBase: server.base, clientID: "caresync", key: key, clock: clock)
        return (try TransactionPoster(url: server.base, policy: RetryPolicy(attempts: 1), authorizer: client, clock: clock), client)
    }

    /// The paths of the server's requests with their statuses, such as `POST /fhir 200`.
    static func log(_ server: FHIRTestServer) -> [String] {
        server.requests.map { "\($0.method) \($0.path) \($0.status.map(String.init) ?? "-")" }
    }

    @Test func aTokenIsObtainedOnceThroughDiscoveryAndUsedUntilItIsDue() async throws {
        let key = SMARTSigningKey.generate()
        let clock = ManualClock(sleepsPass: true)
        let server = try await Self.server(for: key, clock: clock)
        let (poster, client) = try Self.poster(server, key: key, clock: clock)
        _ = try await poster.post(Self.emptyTransaction)
        _ = try await poster.post(Self.emptyTransaction)
        #expect(Self.log(server) == [
            "GET /fhir/.well-known/smart-configuration 200", "POST /auth/token 200", "POST /fhir 200", "POST /fhir 200",
        ])
        // A 300 s token is renewed 60 s before it expires: not at 239 s, at 240 s.
        try await clock.sleep(.seconds(239))
        _ = try await poster.post(Self.emptyTransaction)
        #expect(await client.tokensObtained == 1)
        try await clock.sleep(.seconds(1))
        _ = try await poster.post(Self.emptyTransaction)
        #expect(await client.tokensObtained == 2)
        #expect(server.tokensIssued == 2)
        #expect(Self.log(server).suffix(2) == ["POST /auth/token 200", "POST /fhir 200"], "renewed before, not after, a refusal")
        await server.stop()
    }

    @Test func aTokenTheServerExpiredIsRenewedAndTheTransactionSentAgainOnce() async throws {
        let key = SMARTSigningKey.generate()
        let clock = ManualClock(sleepsPass: true)
        let server = try await Self.server(for: key, clock: clock)
        let (poster, client) = try Self.poster(server, key: key, clock: clock)
        _ = try await poster.post(Self.emptyTransaction)
        server.expireTokens()
        let result = try await poster.post(Self.emptyTransaction)
        #expect(result.attempts == 1)
        #expect(await client.tokensObtained == 2)
        #expect(Self.log(server).suffix(3) == ["POST /fhir 401", "POST /auth/token 200", "POST /fhir 200"])
        await server.stop()
    }

    @Test func anAssertionSignedWithAnotherKeyIsRefusedAndNothingIsPosted() async throws {
        let clock = ManualClock(sleepsPass: true)
        let server = try await Self.server(for: SMARTSigningKey.generate(), clock: clock)
        let (poster, _) = try Self.poster(server, key: SMARTSigningKey.generate(), clock: clock)
        let token = server.url.replacingOccurrences(of: "/fhir/", with: "/auth/token")
        await #expect(throws: FHIRExportError.unauthorized(url: token, reason: "invalid_client: the client assertion names another key")) {
            try await poster.post(Self.emptyTransaction)
        }
        #expect(!server.requests.contains { $0.path == "/fhir" }, "no transaction without a token")
        await server.stop()
    }

    @Test func aServerWithoutSMARTIsNamedAsSuch() async throws {
        let server = try await FHIRTestServer()
        let (poster, _) = try Self.poster(server, key: SMARTSigningKey.generate(), clock: ManualClock(sleepsPass: true))
        await #expect(throws: FHIRExportError.unauthorized(
            url: "\(server.base)/.well-known/smart-configuration", reason: "no SMART configuration (HTTP 404)")) {
            try await poster.post(Self.emptyTransaction)
        }
        await server.stop()
    }

    @Test func aFixedTokenThatIsRefusedIsNotSentAgain() async throws {
        let server = try await FHIRTestServer(options: FHIRTestServer.Options(token: "right"))
        let poster = try TransactionPoster(
            url: server.base, policy: RetryPolicy(attempts: 3), authorizer: BearerToken("wrong"), clock: ManualClock(sleepsPass: true))
        await #expect(throws: FHIRExportError.refused(url: server.base, status: 401, outcome: "the test server needs its bearer token")) {
            try await poster.post(Self.emptyTransaction)
        }
        #expect(Self.log(server) == ["POST /fhir 401"])
        await server.stop()
    }

    @Test func anUnreachableTokenEndpointIsAFailureThatMayPass() async throws {
        let clock = ManualClock(sleepsPass: true)
        let client = SMARTBackendClient(fhirBase: "http://127.0.0.1:1/fhir", clientID: "caresync", key: .generate(), clock: clock)
        let poster = try TransactionPoster(url: "http://127.0.0.1:1/fhir", policy: RetryPolicy(attempts: 3), authorizer: client, clock: clock)
        await #expect(throws: FHIRExportError.unreachable(
            url: "http://127.0.0.1:1/fhir/.well-known/smart-configuration", attempts: 3, detail: "connection refused")) {
            try await poster.post(Self.emptyTransaction)
        }
        #expect(clock.requestedSleeps.count == 2, "tried again by the poster's policy")
    }

    /// The assertion as a server reads it: ES384 with the key's thumbprint as `kid`, issuer and
    /// subject the client, audience the token endpoint, expiring within five minutes, a new
    /// `jti` each time; its signature verifies with the JWK Set's key.
    @Test func theAssertionSaysWhatSMARTAsks() throws {
        let key = SMARTSigningKey.generate()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jwt = try ClientAssertion.make(clientID: "c1", audience: "http://127.0.0.1:9/auth/token", key: key, now: now)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try Self.decode(parts[0])
        let claims = try Self.decode(parts[1])
        #expect(header["alg"] as? String == "ES384" && header["typ"] as? String == "JWT" && header["kid"] as? String == key.keyID)
        #expect(claims["iss"] as? String == "c1" && claims["sub"] as? String == "c1")
        #expect(claims["aud"] as? String == "http://127.0.0.1:9/auth/token")
        let exp = try #require(claims["exp"] as? Int)
        #expect(exp > 1_800_000_000 && exp <= 1_800_000_300)
        let again = try ClientAssertion.make(clientID: "c1", audience: "a", key: key, now: now)
        #expect(try Self.decode(again.split(separator: ".").map(String.init)[1])["jti"] as? String != claims["jti"] as? String)
        let jwk = try #require(((try JSONSerialization.jsonObject(with: key.jwks) as? [String: Any])?["keys"] as? [[String: Any]])?.first)
        let point = try [0x04] + Self.bytes(#require(jwk["x"] as? String)) + Self.bytes(#require(jwk["y"] as? String))
        let publicKey = try P384.Signing.PublicKey(x963Representation: point)
        let signature = try P384.Signing.ECDSASignature(rawRepresentation: Self.bytes(parts[2]))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(jwk["kid"] as? String == key.keyID)
    }

    @Test func aKeyIsReadBackFromItsPEMAndAnythingElseIsRefused() throws {
        let key = SMARTSigningKey.generate()
        #expect(try SMARTSigningKey(pem: key.pemRepresentation, source: "k.pem").jwks == key.jwks)
        #expect(throws: FHIRExportError.self) { try SMARTSigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", source: "k.pem") }
        let p256 = P256.Signing.PrivateKey().pemRepresentation
        #expect(throws: FHIRExportError.noToken(
            "k.pem holds no P-384 private key in PEM")) {
            try SMARTSigningKey(pem: p256, source: "k.pem")
        }
    }

    static func bytes(_ base64url: String) throws -> [UInt8] {
        var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return try [UInt8](#require(Data(base64Encoded: text)))
    }

    static func decode(_ part: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes(part))) as? [String: Any])
    }
}
