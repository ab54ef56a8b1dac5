import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Issue 53, item 1: a code made on the devices page is shown again only to the session that
/// made it, by a handle nobody can guess; a standby code (which carries the primary's
/// identity) is never shown, and a standby device is listed as one.
struct CodeVisibilityTests {
    @Test func aCodeIsShownOnlyToTheSessionThatMadeIt() async throws {
        let web = try await WebFixture()
        try await web.signIn()
        let maker = web.cookiesHeader
        let devices = try await web.request(.GET, "/devices")
        let csrf = try #require(WebFixture.field("csrf", in: devices.body))
        let made = try await web.request(.POST, "/devices/code", form: [("csrf", csrf), ("kind", "household-recording")])
        let location = try #require(made.headers.first(name: "Location"))
        let handle = String(try #require(location.split(separator: "=").last))
        #expect(location.hasPrefix("/devices?code=") && handle.count == 32 && handle.allSatisfy(\.isHexDigit), "\(location)")
        let shown = try await web.request(.GET, location)
        #expect(shown.body.contains("class=\"big-code\""), "the maker sees its code")

        // Another caregiver's browser, with the same URL or with row ids, sees none.
        web.clock.advance(by: 1)
        try await web.signIn()
        let other = web.cookiesHeader
        #expect(other != maker)
        let stranger = try await web.request(.GET, location)
        #expect(stranger.status == 200 && !stranger.body.contains("big-code"), "another session is not shown the code")
        for id in 1...4 {
            let guessed = try await web.request(.GET, "/devices?code=\(id)")
            #expect(guessed.status == 400 && !guessed.body.contains("big-code"), "a row id names no code")
        }

        // A standby code is never shown, even to a session it was (somehow) opened for.
        let session = try #require(try await web.store.webSessions.all().first).id  // the newest: this browser's
        let standby = try await web.store.core.access.openPairingCode(
            "STANDBY2", role: .household, mayRecord: true, standby: true, shownTo: session, expiresAt: web.clock.now.addingTimeInterval(600))
        let standbyPage = try await web.request(.GET, "/devices?code=\(standby)")
        #expect(standbyPage.status == 200 && !standbyPage.body.contains("STAN"), "a standby code is never shown")
        #expect(try await web.store.devices.openCode(standby, shownTo: session, at: web.clock.now) == nil)
        #expect(try await web.store.devices.openCode(handle, shownTo: session, at: web.clock.now) == nil)
        try await web.stop()
    }

    @Test func aStandbyDeviceIsListedAsOne() async throws {
        let web = try await WebFixture()
        try await web.store.core.access.openPairingCode("STANDBY2", role: .household, mayRecord: true, standby: true, expiresAt: web.clock.now.addingTimeInterval(600))
        let candidate = try #require(try await web.store.devices.pairingCandidates().first)
        let paired = try await web.store.core.access.redeemPairing(codeID: candidate.id, deviceID: String(repeating: "ab", count: 32), name: "Anna's laptop", role: .household)
        #expect((try? paired.get())?.standby == true)
        try await web.signIn()
        let english = try await web.request(.GET, "/devices")
        #expect(english.body.contains("Household device · keeps a standby copy"), "\(english.body)")
        let german = try await web.request(.GET, "/devices", headers: [("Accept-Language", "de")])
        #expect(german.body.contains("hält eine Reservekopie"))
        try await web.stop()
    }
}
