import CarePlan
import Foundation
import Testing

/// What one client may ask of the app is bounded: body, fields, open live streams.
struct LimitsTests {
    @Test func aFormWithTooManyFieldsIsRefused() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn()
        let token = try #require(WebFixture.field("csrf", in: card))
        let fields = [("csrf", token)] + (0..<70).map { ("value[]", "\($0)") }
        let reply = try await web.request(.POST, "/outcomes", form: fields)
        #expect(reply.status == 400 && reply.body.contains("more than 64 fields"), "\(reply.status) \(reply.body)")
        try await web.stop()
    }

    @Test func liveStreamsBeyondTheLimitAreRefusedUntilOneCloses() async throws {
        let web = try await WebFixture(.live) { $0.maximumLiveStreams = 1 }
        try await web.signIn()
        let first = try await web.openLive()
        _ = try await first.next(containing: "event: revision")
        let refused = try await web.request(.GET, "/live", headers: [("Accept", "application/json")])
        #expect(refused.status == 503 && refused.body.contains("\"error\":\"busy\""), "\(refused.status) \(refused.body)")
        try await web.stop()
    }
}
