import CarePlan
import Foundation
import SyncNode
import SyncProtocol
import Testing

/// Contexts follow the plan's calendar: tomorrow for a watch late in the evening, and a
/// new day at midnight without any change to the store.
@Suite(.serialized) struct DayRolloverTests {
    @Test func aWatchSeesTomorrowInTheEveningAndTheNewDayAtMidnight() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        let clock = ManualClock(today.date(at: TimeOfDay("23:00")!, in: .gmt))
        let primary = try await TestPrimary(clock: clock)
        let watch = try await primary.pairedCompanion(.watch)
        let widget = try await primary.pairedCompanion(.widget)
        let tasks = [Task { await watch.run() }, Task { await widget.run() }]

        let evening = try #require(await watch.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
        #expect(evening.days.map(\.day) == [today, today.adding(days: 1)])
        let widgetEvening = try #require(await widget.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
        #expect(widgetEvening.days.map(\.day) == [today])

        // No store change: the context changes because the day does.
        let revision = try await primary.store.revision()
        clock.set(today.adding(days: 1).date(at: TimeOfDay("00:00")!, in: .gmt))
        let morning = try #require(await widget.firstEvent(within: patience) { event -> ApplicationContext? in
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
