import CarePlanStore
import CareWeb
import Foundation
import NodeIdentity
import Testing

/// Beyond loopback the app speaks HTTPS with the primary's certificate, and only then.
struct TLSTests {
    @Test func anAddressBeyondLoopbackNeedsTheIdentityToServeHTTPS() async throws {
        var configuration = WebConfiguration()
        configuration.host = "192.0.2.10"
        #expect(!configuration.isLoopback)
        let error = WebServerError.needsTLS(host: "192.0.2.10")
        #expect(error.description.contains("needs TLS"))
        let web = try await WebFixture(.live)
        #expect(throws: error) {
            try CareWebServer(store: web.store, changes: .init(store: web.store, logger: .init(label: "t")), configuration: configuration, logger: .init(label: "t"))
        }
        try await web.stop()
    }

    @Test func underTLSTheCookieIsSecureAndThePagesComeOverHTTPS() async throws {
        let identity = try NodeIdentity.create(name: "Web test primary", now: Date())
        let web = try await WebFixture(.live) { $0.identity = identity }
        #expect(web.base.hasPrefix("https://"))
        try await web.store.core.access.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        let reply = try await web.request(.POST, "/sign-in", form: [("code", "K7QM2XRD")], headers: [("Origin", web.base)])
        #expect(reply.status == 303)
        let cookie = try #require(reply.headers["Set-Cookie"].first { $0.hasPrefix("caresync_session=") })
        #expect(cookie.contains("; Secure"), "\(cookie)")
        // An Origin naming plain HTTP is another origin.
        let plain = web.base.replacingOccurrences(of: "https://", with: "http://")
        let refused = try await web.request(.POST, "/sign-out", form: [("csrf", "x")], headers: [("Origin", plain)])
        #expect(refused.status == 403)
        try await web.stop()
    }
}
