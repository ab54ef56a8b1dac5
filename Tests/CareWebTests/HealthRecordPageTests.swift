import CareFHIR
@testable import CareWeb
import FHIRTestServer
import Foundation
import Logging
import Testing

/// Connecting the patient's health record from the care app: the page, the launch bound to
/// the session, the callback (its one hop for the SameSite cookie), the medications imported,
/// a refresh, a refused refresh shown, a disconnection; and each `state` refused that is not
/// this session's, or used, or unknown.
struct HealthRecordPageTests {
    static let redirect = "http://localhost/health-record/callback"

    /// A test server with one active order for patient P1 (user "pat", password "secret").
    static func server(clock: ManualClock, _ change: (inout SMARTLaunchRegistration) -> Void = { _ in }) async throws -> FHIRTestServer {
        var options = FHIRTestServer.Options()
        options.clock = clock
        var launch = SMARTLaunchRegistration(clientID: "caresync", redirectURIs: [redirect], users: ["pat": (password: "secret", patient: "P1")])
        change(&launch)
        options.launch = launch
        let orders = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fhir/health-record-orders.json").path
        return try await FHIRTestServer(loading: [orders], options: options)
    }

    /// The app with a health record vault in its scratch directory, its registration announced.
    static func fixture() async throws -> WebFixture {
        var vault: TokenVault?
        let web = try await WebFixture(configureInScratch: { configuration, scratch in
            let directory = scratch.path("vault")
            vault = TokenVault(directory: directory)
            configuration.healthRecord = HealthRecordSettings(
                vault: vault!, requests: OAuthRequests(), authorizer: HealthRecordAuthorizer(vault: vault!, requests: OAuthRequests(), logger: Logger(label: "test")))
        })
        try vault!.announce(HealthRecordApp(clientID: "caresync", redirectURI: redirect))
        return web
    }

    /// Connect → the authorization server → back: the callback's path and query.
    static func connect(_ web: WebFixture, to server: FHIRTestServer, allow: Bool = true) async throws -> String {
        let page = try await web.request(.GET, "/health-record")
        let csrf = try #require(WebFixture.field("csrf", in: page.body))
        let started = try await web.request(.POST, "/health-record/connect", form: [("csrf", csrf), ("server", server.base)])
        #expect(started.status == 200, "\(started.body)")
        let refresh = try #require(started.headers.first(name: "Refresh"))
        let authorizeURL = String(refresh[try #require(refresh.range(of: "url=")).upperBound...])
        #expect(started.body.contains(authorizeURL.replacingOccurrences(of: "&", with: "&amp;")), "a link too, for a browser that does not refresh")
        let back = try await PatientAtTheDoor.signIn(at: authorizeURL, allow: allow)
        #expect(back.scheme == "http" && back.host == "localhost" && back.path == "/health-record/callback")
        return back.path + "?" + (back.percentEncodedQuery ?? "")
    }

    @Test func theCareAppConnectsThePatientsRecordAndImportsTheirMedications() async throws {
        let web = try await Self.fixture()
        let server = try await Self.server(clock: web.clock)
        try await web.signIn()
        let before = try await web.request(.GET, "/health-record")
        #expect(before.body.contains("id=\"connect-form\"") && before.body.contains(Self.redirect))
        let callback = try await Self.connect(web, to: server)
        // The browser comes back without its SameSite=Strict cookie: one hop of the app's own.
        let hop = try await web.request(.GET, callback, withCookies: false)
        #expect(hop.status == 200 && (hop.headers.first(name: "Refresh") ?? "").hasSuffix("&hop=1"))
        let connected = try await web.request(.GET, callback + "&hop=1")
        #expect(connected.status == 200, "\(connected.body)")
        #expect(connected.body.contains("Connected to \(server.base)") && connected.body.contains("Patient: P1"))
        #expect(connected.body.contains("1 medication order read: 1 added"), "\(connected.body)")
        #expect(connected.body.contains("patient/MedicationRequest.rs"))
        #expect(connected.body.contains("are sent to this record as they arrive, for patient P1"))
        let activities = try await web.store.plan.activities()
        #expect(activities.contains { $0.activity.title.contains("Amoxicillin 250 mg") })
        // The same callback again: its state was used.
        let again = try await web.request(.GET, callback + "&hop=1")
        #expect(again.status == 422 && again.body.contains("was not started in this browser, was finished already"), "\(again.body)")
        try await web.stop()
        await server.stop()
    }

    @Test func aStateOfAnotherSessionOrNoneIsRefused() async throws {
        let web = try await Self.fixture()
        let server = try await Self.server(clock: web.clock)
        try await web.signIn()
        let callback = try await Self.connect(web, to: server)
        // Another browser signs in and brings this session's callback: refused, and the
        // launch is left for the session that started it (issue 53, item 5).
        let starter = web.cookiesHeader
        try await web.signIn()
        let stranger = try await web.request(.GET, callback + "&hop=1")
        #expect(stranger.status == 422 && stranger.body.contains("was not started in this browser"), "\(stranger.body)")
        let german = try await web.request(.GET, callback + "&hop=1", headers: [("Accept-Language", "de")])
        #expect(german.body.contains("nicht in diesem Browser begonnen"))
        let right = try await web.request(.GET, callback + "&hop=1", headers: [("Cookie", starter)], withCookies: false)
        #expect(right.status == 200 && right.body.contains("Connected to \(server.base)"), "\(right.body)")
        let unknown = try await web.request(.GET, "/health-record/callback?code=x&state=not-a-state&hop=1")
        #expect(unknown.status == 422)
        #expect(server.launchRefusals.isEmpty, "no wrong code was ever sent to be exchanged")
        try await web.stop()
        await server.stop()
    }

    @Test func aDeniedConsentIsShownAndNothingIsKept() async throws {
        let web = try await Self.fixture()
        let server = try await Self.server(clock: web.clock)
        try await web.signIn()
        let callback = try await Self.connect(web, to: server, allow: false)
        let denied = try await web.request(.GET, callback + "&hop=1")
        #expect(denied.status == 422 && denied.body.contains("Nothing was recorded: access to the health record was not allowed."), "\(denied.body)")
        #expect(!denied.body.contains("access_denied"), "no OAuth error code in what a person reads")
        #expect(try web.server.configuration.healthRecord?.vault.connection() == nil)
        try await web.stop()
        await server.stop()
    }

    @Test func aRefusedRefreshAsksToSignInAgainAndDisconnectingRevokes() async throws {
        let web = try await Self.fixture()
        let server = try await Self.server(clock: web.clock)
        try await web.signIn()
        let callback = try await Self.connect(web, to: server)
        _ = try await web.request(.GET, callback + "&hop=1")
        server.revokeRefreshTokens()
        web.clock.advance(by: 300)
        let page = try await web.request(.GET, "/health-record")
        let csrf = try #require(WebFixture.field("csrf", in: page.body))
        let refreshed = try await web.request(.POST, "/health-record/refresh", form: [("csrf", csrf)])
        #expect(refreshed.body.contains("sign in to the health record again"), "\(refreshed.body)")
        let shown = try await web.request(.GET, "/health-record")
        #expect(shown.body.contains("id=\"sign-in-again\"") && shown.body.contains("id=\"connect-form\""))
        // Disconnecting forgets the sign-in.
        let vault = try #require(web.server.configuration.healthRecord?.vault)
        #expect(try vault.connection() != nil)
        _ = try await vault.disconnect(requests: OAuthRequests())
        #expect(try vault.connection() == nil)
        try await web.stop()
        await server.stop()
    }
}
