import CarePlan
import CarePlanStore
import Foundation
import SyncNode
import SyncProtocol
import Testing
import Waiting

/// Missed-dose alerts from a primary on a clock the test sets, to household devices in this
/// process: the apple's three daily doses are due at 08:00, 12:30 and 18:30 GMT (the
/// standard routine), each missed an hour later.
@Suite(.serialized) struct DoseAlertSyncTests {
    let scratch = Scratch()

    /// The alerts of the next `.alerts` event, or `nil`.
    func nextAlerts(_ node: CompanionNode) async -> [DoseAlert]? {
        await node.firstEvent(within: patience) { if case .alerts(let alerts) = $0 { alerts } else { nil } }
    }

    /// The context says when each dose is missed, by the alerts' own rule (the routine's time
    /// plus the grace period), so that a device that cannot reach the primary knows too.
    @Test func theContextCarriesTheTimeEachDoseCountsAsMissed() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        let clock = ManualClock(today.date(at: TimeOfDay("07:00")!, in: .gmt))
        let primary = try await TestPrimary(clock: clock)
        let widget = try await primary.pairedCompanion(.widget)
        let running = Task { await widget.run() }
        defer { running.cancel() }
        let context = try #require(await widget.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
        let missedAt = context.days.first { $0.day == today }?.events.map(\.missedAt)
        #expect(missedAt == ["09:00", "13:30", "19:30"].map { today.date(at: TimeOfDay($0)!, in: .gmt) })
        await widget.stop()
    }

    @Test func aMissedDoseAndItsAllClearReachTheHouseholdOnceAcrossReconnections() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        let clock = ManualClock(today.date(at: TimeOfDay("09:00")!, in: .gmt).addingTimeInterval(30))
        let primary = try await TestPrimary(configure: { configuration in
            configuration.clock = clock
            configuration.dayCheckInterval = .milliseconds(20)
        })
        let directory = scratch.path("household")
        var configuration = CompanionConfiguration(role: .household, name: "Hall", stateDirectory: directory, endpoint: primary.endpoint)
        configuration.alerts = true
        configuration.deadlineClock = ManualClock()  // as makeCompanion's
        let paired = try await CompanionNode(configuration: configuration)
        _ = try await paired.pair(code: try primary.openCode(.household))
        let widget = try await primary.pairedCompanion(.widget)
        let running = Task { await paired.run() }
        let widgetRunning = Task { await widget.run() }

        let missed = try #require(await nextAlerts(paired))
        #expect(missed.map(\.kind) == [.missed])
        #expect(missed.first?.key.activityID == "apple")
        #expect(missed.first?.key.occurrence == 0)
        #expect(missed.first?.time == TimeOfDay("08:00"))
        #expect(missed.first?.raisedAt == today.date(at: TimeOfDay("09:00")!, in: .gmt).addingTimeInterval(30))

        try await primary.store.record(
            Outcome(state: .completed, recordedAt: clock.now, device: "cli"), for: try #require(missed.first).key)
        let clear = try #require(await nextAlerts(paired))
        #expect(clear.map(\.kind) == [.cleared])
        #expect(clear.first?.outcome == .completed)
        #expect(clear.first?.sequence == 2)
        await paired.stop()
        _ = await running.value

        // While it is away the 12:30 dose is missed at 13:30; back, it hears of that alone, once.
        clock.set(today.date(at: TimeOfDay("13:31")!, in: .gmt))
        try await waitFor("the 12:30 dose's alert raised at 13:31", seen: { "no alert after the second" }) {
            try await !primary.store.reminders.alerts(after: 2, raisedSince: .distantPast, limit: 1).isEmpty
        }
        let returned = try await CompanionNode(configuration: configuration)
        let back = Task { await returned.run() }
        let backlog = try #require(await nextAlerts(returned))
        #expect(backlog.map(\.sequence) == [3])
        #expect(backlog.first?.key.occurrence == 1)

        // The widget never asked for alerts and never heard of them; it followed the plan.
        await widget.stop()
        _ = await widgetRunning.value
        var widgetEvents: [CompanionEvent] = []
        for await event in widget.events { widgetEvents.append(event) }
        #expect(widgetEvents.contains { if case .context = $0 { true } else { false } })
        #expect(!widgetEvents.contains { if case .alerts = $0 { true } else { false } })
        await returned.stop()
        _ = await back.value
        await primary.stop()
    }
}
