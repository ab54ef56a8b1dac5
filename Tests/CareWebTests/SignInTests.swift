import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Signing in with a one-time code: the cookie it sets, what a wrong, used or expired code
/// gets, the lock after too many wrong codes, and sessions that end.
struct SignInTests {
    @Test func aCodeSignsInOnceWithAStrictHttpOnlyCookie() async throws {
        let web = try await WebFixture()
        try await web.store.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        // Typed as a person would: lower case, with the dash, an O for the zero.
        let reply = try await web.request(.POST, "/sign-in", form: [("code", "k7qm-2xrd"), ("name", "Kitchen tablet")])
        #expect(reply.status == 303 && reply.headers.first(name: "Location") == "/")
        let cookie = try #require(reply.headers["Set-Cookie"].first { $0.hasPrefix("caresync_session=") })
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=1209600"] { #expect(cookie.contains(attribute), "\(cookie)") }
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never come back")
        let card = try await web.request(.GET, "/")
        #expect(card.status == 200 && card.body.contains("<h1>Care card</h1>"))

        let sessions = try await web.store.webSessions()
        #expect(sessions.count == 1 && sessions[0].name == "Kitchen tablet" && sessions[0].access == .caregiver)
        // The store keeps the secret's hash, never the secret.
        let secret = String(cookie.dropFirst("caresync_session=".count).prefix { $0 != ";" })
        #expect(sessions[0].id != secret && sessions[0].id.count == 64)

        let again = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(again.status == 401 && again.body.contains("This code was already used"))
        try await web.stop()
    }

    @Test func wrongCodesCountDownAndLockSigningInLikePairing() async throws {
        let web = try await WebFixture()
        try await web.store.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        for left in (1...4).reversed() {
            let reply = try await web.request(.POST, "/sign-in", form: [("code", "AAAA-AAAA")])
            #expect(reply.status == 401 && reply.body.contains("Wrong code (\(left) attempt\(left == 1 ? "" : "s") left)."), "\(reply.body)")
        }
        let locked = try await web.request(.POST, "/sign-in", form: [("code", "AAAA-AAAA")])
        #expect(locked.body.contains("Too many wrong codes"))
        // Locked: even the right code no longer works, until a new one is made.
        let right = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(right.status == 401 && !right.headers["Set-Cookie"].contains { $0.hasPrefix("caresync_session=") })
        // Not a code at all is said so, and does not count.
        let garbage = try await web.request(.POST, "/sign-in", form: [("code", "hello")])
        #expect(garbage.status == 400 && garbage.body.contains("That is not a sign-in code"))
        try await web.stop()
    }

    @Test func aCompanionsPairingCodeDoesNotSignABrowserInNorABrowsersCodePairACompanion() async throws {
        let web = try await WebFixture()
        try await web.store.openPairingCode("K7QM2XRD", role: .watch, mayRecord: true, expiresAt: web.clock.now.addingTimeInterval(600))
        let reply = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(reply.status == 401 && reply.body.contains("Wrong code"))
        try await web.store.openSignInCode("M2XRDK7Q", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        #expect(try await web.store.pairingCandidates().map(\.code) == ["K7QM2XRD"])
        try await web.stop()
    }

    @Test func anExpiredCodeAndAnExpiredOrRevokedSessionGoBackToSigningIn() async throws {
        let web = try await WebFixture()
        try await web.store.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(60))
        web.clock.advance(by: 61)
        let expired = try await web.request(.POST, "/sign-in", form: [("code", "K7QM2XRD")])
        #expect(expired.status == 401 && expired.body.contains("This code has expired"))

        try await web.signIn()
        web.clock.advance(by: 14 * 24 * 3600 + 1)
        let later = try await web.request(.GET, "/")
        #expect(later.status == 303 && later.headers.first(name: "Location") == "/sign-in")

        try await web.signIn()
        let session = try #require(try await web.store.webSessions().first)
        let revoked = try await web.store.revokeWebSession(session.shortID)
        #expect(revoked?.id == session.id)
        let afterRevocation = try await web.request(.GET, "/")
        #expect(afterRevocation.status == 303 && afterRevocation.headers.first(name: "Location") == "/sign-in")
        // A script asking gets JSON, not a redirect.
        let json = try await web.request(.GET, "/", headers: [("Accept", "application/json")])
        #expect(json.status == 401 && json.body.contains("\"error\":\"sign-in-needed\""))
        try await web.stop()
    }

    @Test func signingOutEndsTheSessionAndForgetsTheCookie() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn()
        let token = try #require(WebFixture.field("csrf", in: card))
        let out = try await web.request(.POST, "/sign-out", form: [("csrf", token)])
        #expect(out.status == 303 && out.headers.first(name: "Location") == "/sign-in")
        #expect(out.headers["Set-Cookie"].contains { $0.hasPrefix("caresync_session=;") && $0.contains("Max-Age=0") })
        #expect(try await web.store.webSessions().first?.revokedAt != nil)
        try await web.stop()
    }
}
