@testable import CareFHIR
import Crypto
import FHIRTestServer
import Foundation
import Testing
import Waiting
import TestSupport

/// A standalone patient launch against the test server's authorization server: discovery,
/// the authorization request, the code's exchange, and each refusal a real server makes.
struct HealthRecordLaunchTests {
    static let redirect = "https://primary.local:8443/health-record/callback"
    let clock = ManualClock(sleepsPass: true)
    let requests = OAuthRequests(timeout: .seconds(30))

    /// A server where patient "pat" (password "secret") is patient P1, for the app "caresync-app"
    /// (confidential, with `clientKey`).
    func server(v2: Bool = true, clientKey: SMARTClientRegistration? = nil) async throws -> FHIRTestServer {
        var options = FHIRTestServer.Options()
        options.clock = clock
        var registration = SMARTLaunchRegistration(
            clientID: "caresync-app", redirectURIs: [Self.redirect], users: ["pat": (password: "secret", patient: "P1")])
        registration.v2Scopes = v2
        registration.clientKey = clientKey
        options.launch = registration
        return try await FHIRTestServer(options: options)
    }

    func begin(_ server: FHIRTestServer, redirect: String = redirect, keyFile: String? = nil) async throws -> HealthRecordLaunch {
        try await HealthRecordLaunch.begin(
            server: server.base, app: HealthRecordApp(clientID: "caresync-app", redirectURI: redirect, keyFile: keyFile), session: nil,
            now: clock.now, requests: requests)
    }

    @Test func theAuthorizationRequestCarriesEverythingAStandaloneLaunchNeeds() async throws {
        let server = try await server()
        let launch = try await begin(server)
        let url = try #require(URLComponents(string: launch.authorizeURL))
        #expect(url.path == "/auth/authorize")
        #expect(url.query("response_type") == "code" && url.query("client_id") == "caresync-app")
        #expect(url.query("redirect_uri") == Self.redirect && url.query("aud") == server.base)
        #expect(url.query("code_challenge_method") == "S256")
        #expect(url.query("code_challenge") == Base64URL.encode(SHA256.hash(data: Data(launch.verifier.utf8))))
        #expect(launch.verifier.count == 43 && launch.state.count == 43 && launch.state != launch.verifier)
        let scopes = Set((url.query("scope") ?? "").split(separator: " ").map(String.init))
        #expect(scopes.isSuperset(of: ["launch/patient", "openid", "fhirUser", "offline_access", "patient/MedicationRequest.rs", "patient/Observation.c"]))
        // Another launch: another state and verifier.
        let again = try await begin(server)
        #expect(again.state != launch.state && again.verifier != launch.verifier)
        await server.stop()
    }

    @Test func aServerThatListsOnlyV1ScopesIsAskedInV1() async throws {
        let server = try await server(v2: false)
        let launch = try await begin(server)
        #expect(launch.scope.contains("patient/Observation.write") && launch.scope.contains("patient/MedicationOrder.read"))
        #expect(!launch.scope.contains(".rs") && !launch.scope.contains(".c "))
        await server.stop()
    }

    @Test func theCodeIsExchangedForThePatientsTokens() async throws {
        let server = try await server()
        let launch = try await begin(server)
        let back = try await PatientAtTheDoor.signIn(at: launch.authorizeURL)
        #expect(back.query("state") == launch.state)
        let connection = try await launch.finish(code: try #require(back.query("code")), now: clock.now, requests: requests)
        #expect(connection.patient == "P1")
        #expect(connection.grantedScope.contains("patient/Observation.c"))
        #expect(connection.canRefresh)
        #expect(connection.expiresAt == clock.now.addingTimeInterval(300))
        #expect(!"\(connection)".contains(connection.accessToken))
        await server.stop()
    }

    @Test func aDeniedConsentComesBackAsAccessDenied() async throws {
        let server = try await server()
        let launch = try await begin(server)
        let back = try await PatientAtTheDoor.signIn(at: launch.authorizeURL, allow: false)
        #expect(back.query("error") == "access_denied" && back.query("state") == launch.state && back.query("code") == nil)
        await server.stop()
    }

    @Test func aWrongVerifierIsRefused() async throws {
        let server = try await server()
        var launch = try await begin(server)
        let back = try await PatientAtTheDoor.signIn(at: launch.authorizeURL)
        launch.verifier = PKCE.random().verifier
        await #expect(throws: HealthRecordError.exchangeFailed("invalid_grant: the code_verifier does not match the code_challenge")) {
            try await launch.finish(code: back.query("code") ?? "", now: clock.now, requests: requests)
        }
        await server.stop()
    }

    @Test func aCodeUsedTwiceIsRefusedAndItsTokensRevoked() async throws {
        let server = try await server()
        let launch = try await begin(server)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        let connection = try await launch.finish(code: code, now: clock.now, requests: requests)
        await #expect(throws: HealthRecordError.exchangeFailed("invalid_grant: the code was used before; the tokens issued for it are revoked")) {
            try await launch.finish(code: code, now: clock.now, requests: requests)
        }
        let client = FHIRClient(base: server.base, authorizer: BearerToken(connection.accessToken))
        await #expect(throws: FHIRError.server(url: server.base + "/Patient/P1", "HTTP 401: the server refused the authorization")) {
            try await client.get(server.base + "/Patient/P1")
        }
        await server.stop()
    }

    @Test func aRedirectOtherThanTheAuthorizationRequestsIsRefused() async throws {
        let server = try await server()
        var launch = try await begin(server)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        launch.redirectURI = "https://elsewhere.example/callback"
        await #expect(throws: HealthRecordError.exchangeFailed("invalid_grant: redirect_uri differs from the authorization request's")) {
            try await launch.finish(code: code, now: clock.now, requests: requests)
        }
        await server.stop()
    }

    @Test func anUnregisteredRedirectIsNeverSentTo() async throws {
        let server = try await server()
        let launch = try await begin(server, redirect: "https://attacker.example/callback")
        await #expect(throws: PatientAtTheDoor.Stopped.self) { try await PatientAtTheDoor.signIn(at: launch.authorizeURL) }
        await server.stop()
    }

    @Test func anExpiredCodeIsRefused() async throws {
        let server = try await server()
        let launch = try await begin(server)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        try await clock.sleep(.seconds(61))
        await #expect(throws: HealthRecordError.exchangeFailed("invalid_grant: the code has expired")) {
            try await launch.finish(code: code, now: clock.now, requests: requests)
        }
        await server.stop()
    }

    @Test func aServerWithoutSMARTDiscoveryIsNamedAsSuch() async throws {
        let plain = try await FHIRTestServer()
        await #expect {
            try await begin(plain)
        } throws: { error in
            guard case HealthRecordError.noSMARTLaunch(let server, let reason) = error else { return false }
            return server == plain.base && reason.contains("HTTP 404")
        }
        await plain.stop()
    }
}
