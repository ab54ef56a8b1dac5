import CarePlan
import Foundation
import SimulatorSupport
import SyncNode
import Testing

/// How the away notices read: times in the plan's zone (daylight saving included), with the
/// day once it is not today.
struct AwayTextTests {
    let vienna = TimeZone(identifier: "Europe/Vienna")!

    func instant(_ text: String) throws -> Date { try #require(ISO8601.date(from: text)) }

    @Test func unreachableSinceIsAWallClockTimeOfThePlansZone() throws {
        let now = try instant("2026-07-01T13:30:00Z")
        let summer = EventOutput.text(of: .unreachable(since: try instant("2026-07-01T12:02:00Z")), zone: vienna, now: now)
        #expect(summer == "⚠ care plan unreachable since 14:02: no way to the primary works")
        let yesterday = EventOutput.text(of: .unreachable(since: try instant("2026-06-30T21:15:00Z")), zone: vienna, now: now)
        #expect(yesterday.contains("since 2026-06-30 23:15"), "\(yesterday)")
        let winter = EventOutput.text(of: .reachable(since: try instant("2026-12-01T13:02:00Z")), zone: vienna, now: try instant("2026-12-01T14:00:00Z"))
        #expect(winter == "✓ care plan reachable again (unreachable since 14:02)")
    }

    @Test func aDoseNobodyCanConfirmIsNamedByItsTimeAndTitle() throws {
        let day = try #require(CalendarDay("2026-12-01"))
        let item = ApplicationContext.Item(
            key: EventKey(activityID: "levo", day: day, occurrence: 0), title: "Levothyroxine", kind: .intervention, time: TimeOfDay("08:00"),
            state: .initial, values: [], instructions: nil, group: nil, version: 1, recordedBy: nil, recordedAt: nil)
        let missedAt = try instant("2026-12-01T08:00:00Z")
        #expect(EventOutput.text(of: .cannotConfirm(item, missedAt: missedAt), zone: vienna, now: missedAt)
            == "⚠ can't confirm the 08:00 dose of Levothyroxine: the primary is unreachable")
        var untimed = item
        untimed.time = nil
        #expect(EventOutput.text(of: .cannotConfirm(untimed, missedAt: missedAt), zone: vienna, now: missedAt).contains("a dose of Levothyroxine"))
    }
}
