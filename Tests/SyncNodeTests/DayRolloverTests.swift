import CarePlan
import Foundation
import SyncNode
import SyncProtocol
import Testing

/// Contexts follow the plan's calendar: tomorrow for a watch late in the evening, and a
/// new day at midnight without any change to the store.
@Suite(.serialized) struct DayRolloverTests {
    /// A clock that starts `offset` seconds before the next midnight (UTC) and runs.
    static func clock(secondsBeforeMidnight offset: Double) -> @Sendable () -> Date {
        let started = Date()
        let midnight = CalendarDay.containing(started, in: .gmt).adding(days: 1).start(in: .gmt)
        return { midnight.addingTimeInterval(-offset + Date().timeIntervalSince(started)) }
    }

    @Test func aWatchSeesTomorrowInTheEveningAndTheNewDayAtMidnight() async throws {
        let now = Self.clock(secondsBeforeMidnight: 1.5)
        let primary = try await TestPrimary(now: now)
        let watch = try makeCompanion(.watch, endpoint: primary.endpoint)
        let widget = try makeCompanion(.widget, endpoint: primary.endpoint)
        let tasks = [Task { await watch.run() }, Task { await widget.run() }]
        let today = CalendarDay.containing(now(), in: .gmt)

        let evening = try #require(await firstEvent(of: watch) { if case .context(let c) = $0 { c } else { nil } })
        #expect(evening.days.map(\.day) == [today, today.adding(days: 1)])
        let widgetEvening = try #require(await firstEvent(of: widget) { if case .context(let c) = $0 { c } else { nil } })
        #expect(widgetEvening.days.map(\.day) == [today])

        // No store change: the context changes because the day does.
        let revision = try primary.store.revision()
        let morning = try #require(await firstEvent(of: widget, timeout: .seconds(10)) { event -> ApplicationContext? in
            if case .context(let c) = event, c.days.first?.day == today.adding(days: 1) { c } else { nil }
        })
        #expect(morning.revision == revision)
        #expect(morning.days.map(\.day) == [today.adding(days: 1)])

        await watch.stop()
        await widget.stop()
        for task in tasks { await task.value }
        await primary.stop()
    }
}
