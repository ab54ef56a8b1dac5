import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Signing in with a one-time code: the cookie it sets, what a wrong, used or expired code
/// gets, the lock after too many wrong codes, and sessions that end.
struct SignInTests {
    @Test func aCodeSignsInOnceWithAStrictHttpOnlyCookie() async throws {
        let web = try await WebFixture()
        try await web.store.core.access.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        // Typed as a person would: lower case, with the dash, an O for the zero.
        let reply = try await web.request(.POST, "/sign-in", form: [("code", "k7qm-2xrd"), ("name", "Kitchen tablet")])
        #expect(reply.status == 303 && reply.headers.first(name: "Location") == "/")
        let cookie = try #require(reply.headers["Set-Cookie"].first { $0.hasPrefix("caresync_session=") })
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=1209600"] { #expect(cookie.contains(attribute), "\(cookie)") }
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never come back")
        let card = try await web.request(.GET, "/")
        #expect(card.status == 200 && card.body.contains("<h1>Care card</h1>"))

        let sessions = try await web.store.webSessions.all()
        #expect(sessions.count == 1 && sessions[0].name == "Kitchen tablet" && sessions[0].access == .caregiver)
        // The store keeps the secret's hash, never the secret.
        let secret = String(cookie.dropFirst("caresync_session=".count).prefix { $0 != ";" })
        #expect(sessions[0].id != secret && sessions[0].id.count == 64)

        let again = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(again.status == 401 && again.body.contains("This code was already used"))
        try await web.stop()
    }

    /// Wrong codes count down from the source's five; at the fifth the source waits for its
    /// next attempt, a minute at most (even with the right code, which may be another
    /// person's on the same address), and device pairing is untouched throughout.
    @Test func wrongCodesCountDownAndThrottleTheirSourceNeverPairing() async throws {
        let web = try await WebFixture()
        try await web.store.core.access.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(3600))
        try await web.store.core.access.openPairingCode("W4TCH2PQ", role: .watch, mayRecord: true, expiresAt: web.clock.now.addingTimeInterval(600))
        for left in (1...4).reversed() {
            let reply = try await web.request(.POST, "/sign-in", form: [("code", "AAAA-AAAA")])
            #expect(reply.status == 401 && reply.body.contains("Wrong code (\(left) attempt\(left == 1 ? "" : "s") left)."), "\(reply.body)")
        }
        let fifth = try await web.request(.POST, "/sign-in", form: [("code", "AAAA-AAAA")])
        #expect(fifth.status == 429 && fifth.body.contains("Too many wrong codes from this address: try again in 60 seconds."), "\(fifth.body)")
        #expect(fifth.headers.first(name: "Retry-After") == "60")
        // Throttled: even the right code waits, and nothing is counted against the store.
        web.clock.advance(by: 45)
        let right = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(right.status == 429 && !right.headers["Set-Cookie"].contains { $0.hasPrefix("caresync_session=") })
        #expect(right.body.contains("try again in 15 seconds."), "\(right.body)")
        let german = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")], headers: [("Accept-Language", "de")])
        #expect(german.body.contains("Zu viele falsche Codes von dieser Adresse: Versuchen Sie es in 15 Sekunden wieder."), "\(german.body)")
        // Device pairing never counted those: its code is open and pairs a watch.
        let candidate = try #require(try await web.store.devices.pairingCandidates().first)
        let paired = try await web.store.core.access.redeemPairing(codeID: candidate.id, deviceID: "watch-1", name: "Watch", role: .watch)
        #expect((try? paired.get())?.id == "watch-1")
        // A minute after the fifth, the source has an attempt again, and the right code signs in.
        web.clock.advance(by: 15)
        let later = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(later.status == 303, "\(later.body)")
        // Not a code at all is said so, and does not count.
        let garbage = try await web.request(.POST, "/sign-in", form: [("code", "hello")])
        #expect(garbage.status == 400 && garbage.body.contains("That is not a sign-in code"))
        try await web.stop()
    }

    /// The store counts wrong codes of each kind apart: every browser's wrong sign-in codes
    /// together lock sign-in at ``DeviceAccess.signInAttempts`` and never pairing; wrong
    /// pairing codes lock pairing at five and never sign-in.
    @Test func wrongCodesOfOneKindNeverLockTheOther() async throws {
        let web = try await WebFixture()
        let expires = web.clock.now.addingTimeInterval(600)
        try await web.store.core.access.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: expires)
        try await web.store.core.access.openPairingCode("W4TCH2PQ", role: .watch, mayRecord: true, expiresAt: expires)
        var last: PairingRefusal?
        for _ in 0..<DeviceAccess.signInAttempts {
            let refused = try await web.store.core.access.signIn(code: "AAAAAAAA", sessionID: "x", name: "x", lifetime: 60)
            if case .failure(let refusal) = refused { last = refusal }
        }
        #expect(last == .locked)
        #expect(try await web.store.devices.pairingCandidates().map(\.code) == ["W4TCH2PQ"])
        for _ in 0..<DeviceAccess.pairingAttempts {
            _ = try await web.store.core.access.redeemPairing(codeID: nil, deviceID: "w", name: "w", role: .watch)
        }
        #expect(try await web.store.devices.pairingCandidates().isEmpty)
        try await web.store.core.access.openSignInCode("M2XRDK7Q", access: .caregiver, expiresAt: expires)
        let fresh = try await web.store.core.access.signIn(code: "M2XRDK7Q", sessionID: String(repeating: "a", count: 64), name: "x", lifetime: 60)
        #expect((try? fresh.get()) != nil)
        try await web.stop()
    }

    @Test func aCompanionsPairingCodeDoesNotSignABrowserInNorABrowsersCodePairACompanion() async throws {
        let web = try await WebFixture()
        try await web.store.core.access.openPairingCode("K7QM2XRD", role: .watch, mayRecord: true, expiresAt: web.clock.now.addingTimeInterval(600))
        let reply = try await web.request(.POST, "/sign-in", form: [("code", "K7QM-2XRD")])
        #expect(reply.status == 401 && reply.body.contains("No sign-in code is open"), "\(reply.body)")
        try await web.store.core.access.openSignInCode("M2XRDK7Q", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(600))
        #expect(try await web.store.devices.pairingCandidates().map(\.code) == ["K7QM2XRD"])
        try await web.stop()
    }

    @Test func anExpiredCodeAndAnExpiredOrRevokedSessionGoBackToSigningIn() async throws {
        let web = try await WebFixture()
        try await web.store.core.access.openSignInCode("K7QM2XRD", access: .caregiver, expiresAt: web.clock.now.addingTimeInterval(60))
        web.clock.advance(by: 61)
        let expired = try await web.request(.POST, "/sign-in", form: [("code", "K7QM2XRD")])
        #expect(expired.status == 401 && expired.body.contains("This code has expired"))

        try await web.signIn()
        web.clock.advance(by: 14 * 24 * 3600 + 1)
        let later = try await web.request(.GET, "/")
        #expect(later.status == 303 && later.headers.first(name: "Location") == "/sign-in")

        try await web.signIn()
        let session = try #require(try await web.store.webSessions.all().first)
        let revoked = try await web.store.core.access.revokeWebSession(session.shortID)
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
        #expect(try await web.store.webSessions.all().first?.revokedAt != nil)
        try await web.stop()
    }
}
