import CareFHIR
@testable import CareWeb
import FHIRTestServer
import Foundation
import Testing

/// Issue 53, items 4 and 5: Connect reaches a FHIR server only over https (plain http only to
/// this machine), takes SMART endpoints only as https addresses on a host the page names, says
/// what went wrong in the page's language and the same way whatever the network did; and the
/// callback's hop stays on this app.
struct HealthRecordConnectSafetyTests {
    /// Connect with `server`: the page's answer.
    static func connect(_ web: WebFixture, _ server: String, language: String = "en") async throws -> WebFixture.Reply {
        let page = try await web.request(.GET, "/health-record")
        let csrf = try #require(WebFixture.field("csrf", in: page.body))
        return try await web.request(.POST, "/health-record/connect", form: [("csrf", csrf), ("server", server)], headers: [("Accept-Language", language)])
    }

    @Test func plainHTTPBeyondThisMachineIsRefusedBeforeAnythingIsAsked() async throws {
        let web = try await HealthRecordPageTests.fixture()
        try await web.signIn()
        let page = try await web.request(.GET, "/health-record")
        #expect(page.body.contains("An https address (plain http only for a server on this machine)."))
        for address in ["http://192.0.2.1/fhir", "ftp://fhir.example.org/", "file:///etc/passwd", "https://user:pass@fhir.example.org/r4"] {
            let refused = try await Self.connect(web, address)
            #expect(refused.status == 422 && refused.body.contains("CareSync connects to a health record only over https"), "\(address): \(refused.body)")
        }
        let german = try await Self.connect(web, "http://192.0.2.1/fhir", language: "de")
        #expect(german.body.contains("nur über https"))
        try await web.stop()
    }

    /// A closed port, a server without SMART, one that answers 404, and one that answers too
    /// much all read the same: Connect tells nothing of the state of the primary's network.
    @Test func everyServerThatDoesNotAnswerReadsTheSame() async throws {
        let web = try await HealthRecordPageTests.fixture()
        try await web.signIn()
        let plain = try await FHIRTestServer(loading: [])  // no SMART configuration: 404
        var texts: Set<String> = []
        for address in ["http://127.0.0.1:1/fhir", plain.base, plain.base + "/nothing/here"] {
            let reply = try await Self.connect(web, address)
            #expect(reply.status == 422)
            let notice = try #require(Self.notice(in: reply.body), "\(reply.body)")
            #expect(notice.contains("no health record with SMART sign-in answered at"), "\(notice)")
            // The address itself is left out: its random port may hold "404".
            let said = notice.replacingOccurrences(of: address, with: "ADDRESS")
            for word in ["refused", "404", "HTTP", "Error", "NIO", "closed"] { #expect(!said.contains(word), "\(word) in \(notice)") }
            texts.insert(said)
        }
        #expect(texts.count == 1, "\(texts)")
        let german = try await Self.connect(web, "http://127.0.0.1:1/fhir", language: "de")
        #expect(german.body.contains("hat keine Gesundheitsakte mit SMART-Anmeldung geantwortet"))
        try await web.stop()
        await plain.stop()
    }

    /// A SMART configuration whose endpoints are not https addresses is refused, the sign-in
    /// never sent there; one that is names the host the person signs in at.
    @Test(arguments: [
        ("authorization_endpoint", "javascript:alert(1)"), ("authorization_endpoint", "data:text/html,<h1>x</h1>"),
        ("token_endpoint", "file:///tmp/token"), ("token_endpoint", "http://192.0.2.1/token"),
        ("revocation_endpoint", "http://192.0.2.1/revoke"),
    ])
    func endpointsThatAreNotHTTPSAreRefused(member: String, value: String) async throws {
        let web = try await HealthRecordPageTests.fixture()
        try await web.signIn()
        let server = try await HealthRecordPageTests.server(clock: web.clock) { $0.announced = [member: value] }
        let reply = try await Self.connect(web, server.base)
        #expect(reply.status == 422 && reply.headers.first(name: "Refresh") == nil, "\(reply.body)")
        #expect(reply.body.contains("would have the sign-in go to an address that is not https"), "\(reply.body)")
        #expect(!reply.body.contains(value.prefix(10)))
        try await web.stop()
        await server.stop()
    }

    @Test func theContinuePageNamesWhereThePersonSignsIn() async throws {
        let web = try await HealthRecordPageTests.fixture()
        try await web.signIn()
        let server = try await HealthRecordPageTests.server(clock: web.clock)
        let reply = try await Self.connect(web, server.base)
        #expect(reply.body.contains("You sign in at 127.0.0.1 and allow access to the health record at \(server.base)"), "\(reply.body)")
        try await web.stop()
        await server.stop()
    }

    /// `//health-record/callback` is another host's address to a browser: the hop goes to this
    /// app's own path whatever path the request named.
    @Test func theCallbacksHopStaysOnThisApp() async throws {
        let web = try await HealthRecordPageTests.fixture()
        for path in ["//health-record/callback", "/health-record/callback"] {
            let hop = try await web.request(.GET, path + "?code=c&state=s")
            #expect(hop.status == 200, "\(path): \(hop.status)")
            let refresh = try #require(hop.headers.first(name: "Refresh"))
            #expect(refresh == "0; url=/health-record/callback?code=c&state=s&hop=1", "\(refresh)")
            #expect(hop.body.contains("href=\"/health-record/callback?code=c&amp;state=s&amp;hop=1\""))
        }
        try await web.stop()
    }

    /// The text of the page's error notice.
    static func notice(in body: String) -> String? {
        guard let start = body.range(of: "class=\"notice error\" role=\"alert\">"), let end = body[start.upperBound...].range(of: "</p>") else { return nil }
        return String(body[start.upperBound..<end.lowerBound])
    }
}
