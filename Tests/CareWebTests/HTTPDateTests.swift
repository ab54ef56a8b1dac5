@testable import CareWeb
import Foundation
import NIOHTTP1
import Testing

/// The `Date` header the served app sends, made without a timer.
struct HTTPDateTests {
    /// RFC 9110's own example, and a day of a leap year with one-digit fields.
    @Test func datesAreIMFFixdates() {
        #expect(HTTPDate.text(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.text(1_709_168_645) == "Thu, 29 Feb 2024 01:04:05 GMT")
    }

    /// The header follows the app's clock from one second to the next, whatever was kept.
    @Test func theHeaderFollowsTheClock() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_510_800))
        let date = HTTPDate(clock: clock)
        #expect(date.now == "Tue, 24 Nov 2026 09:00:00 GMT")
        clock.advance(by: 0.5)
        #expect(date.now == "Tue, 24 Nov 2026 09:00:00 GMT")
        clock.advance(by: 0.5)
        #expect(date.now == "Tue, 24 Nov 2026 09:00:01 GMT")
    }

    /// The listening app sends it on every answer, on its clock.
    @Test func theServedAppSendsIt() async throws {
        let web = try await WebFixture(.live)
        let answer = try await web.raw("GET /sign-in HTTP/1.1\nHost: 127.0.0.1:\(web.port)")
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(answer.lowercased().contains("\r\ndate: tue, 24 nov 2026 09:00:00 gmt\r\n"), "\(answer.prefix(400))")
        try await web.stop()
    }

    /// Tests through the router get the answer the listening app gives, its `Date` header
    /// among it: on a page and on a refusal alike.
    @Test func theRouterSendsItToo() async throws {
        let web = try await WebFixture(.router)
        let page = try await web.request(.GET, "/sign-in")
        #expect(page.status == 200)
        #expect(page.headers["Date"] == ["Tue, 24 Nov 2026 09:00:00 GMT"], "\(page.headers)")
        let refused = try await web.request(.GET, "/no-such-page")
        #expect(refused.status == 404)
        #expect(refused.headers["Date"] == ["Tue, 24 Nov 2026 09:00:00 GMT"], "\(refused.headers)")
        try await web.stop()
    }
}
