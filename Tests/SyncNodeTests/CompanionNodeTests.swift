import CarePlan
import CarePlanStore
import Foundation
import SyncNode
import SyncProtocol
import Testing

@Suite(.serialized) struct CompanionNodeTests {
    let scratch = Scratch()

    @Test func aWatchReceivesContextsAndRecordsCompletions() async throws {
        let primary = try await TestPrimary()
        let watch = try await primary.pairedCompanion(.watch)
        let running = Task { await watch.run() }
        let context = try #require(await watch.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
        #expect(context.planTitle == "Test")
        // Three a day: today's, and from 20:00 on the primary's clock tomorrow's too.
        #expect(context.days.count == (Date() >= CalendarDay.containing(Date(), in: .gmt).date(at: TimeOfDay("20:00")!, in: .gmt) ? 2 : 1))
        #expect(context.incomplete.count == 3 * context.days.count)
        let key = context.incomplete[1].key
        let result = try await watch.complete(key)
        guard case .accepted(let revision, false, .completed) = result else {
            Issue.record("unexpected \(result)")
            return
        }
        #expect(try await primary.store.outcomes.event(key).state == .completed)
        #expect(try await primary.store.revision() == revision)
        #expect(watch.pending.isEmpty)
        // The next context reflects it, and the clock it carries is later than the completion's.
        let next = try #require(await watch.firstEvent(within: patience) { event -> ApplicationContext? in
            if case .context(let c) = event, c.revision >= revision { c } else { nil }
        })
        #expect(next.item(key)?.state == .completed)
        let stored = try #require(try await primary.store.outcomes.event(key).outcome?.clock)
        #expect(try #require(next.clock) > stored)
        await watch.stop()
        await running.value
        await primary.stop()
    }

    @Test func aHouseholdDeviceMayNotRecord() async throws {
        let primary = try await TestPrimary()
        let household = try await primary.pairedCompanion(.household)
        let running = Task { await household.run() }
        let context = try #require(await household.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
        let before = try await primary.store.revision()
        let result = try await household.complete(context.incomplete[0].key)
        #expect(result == .rejected(.notPermitted, detail: "this household device was not granted recording at pairing"))
        #expect(try await primary.store.revision() == before)
        #expect(household.pending.isEmpty)
        await household.stop()
        await running.value
        await primary.stop()
    }

    /// A day after today in the plan's time zone is refused from a watch and a widget alike,
    /// and nothing is written; the rejection is final, so the outbox lets it go.
    @Test func aDayToComeIsRefusedFromAWatchAndAWidget() async throws {
        let primary = try await TestPrimary()
        let tomorrow = CalendarDay.containing(Date(), in: .gmt).adding(days: 1)
        for role in [DeviceRole.watch, .widget] {
            let companion = try await primary.pairedCompanion(role)
            let running = Task { await companion.run() }
            _ = try #require(await companion.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } })
            let before = try await primary.store.revision()
            let result = try await companion.complete(EventKey(activityID: "apple", day: tomorrow, occurrence: 0))
            guard case .rejected(.futureDay, let detail) = result else {
                Issue.record("\(role): unexpected \(result)")
                return
            }
            #expect(detail.hasPrefix("\(tomorrow) is after today ("), "\(detail)")
            #expect(try await primary.store.revision() == before)
            #expect(try await primary.store.outcomes.event(EventKey(activityID: "apple", day: tomorrow, occurrence: 0)).outcome == nil)
            #expect(companion.pending.isEmpty)
            await companion.stop()
            await running.value
        }
        await primary.stop()
    }

    /// The primary's service group shut down gracefully, in process: every companion hears
    /// Goodbye, and the group ends without an error.
    @Test func shutdownSaysGoodbyeAndTheCompanionKeepsItsContext() async throws {
        let primary = try await TestPrimary()
        let widget = try await primary.pairedCompanion(.widget)
        let running = Task { await widget.run() }
        _ = await widget.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } }
        await primary.stop()
        let reason = await widget.firstEvent(within: patience) { if case .disconnected(let r) = $0 { r } else { nil } }
        #expect(reason?.contains("goodbye") == true)
        // Offline: the cached context shows, and a completion waits in the outbox.
        #expect(widget.context?.incomplete.count == 3)
        let key = try #require(widget.context?.incomplete.first?.key)
        #expect(try await widget.complete(key) == .queued)
        #expect(widget.pending == [key])
        await widget.stop()
        await running.value
    }

    /// A companion that follows another plan is refused for good and stops retrying.
    @Test func anotherPlansPrimaryRefusesForGood() async throws {
        let first = try await TestPrimary()
        let state = scratch.path("companion")
        let watch = try await first.pairedCompanion(.watch, stateDirectory: state)
        let running = Task { await watch.run() }
        _ = await watch.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } }
        await watch.stop()
        await running.value
        await first.stop()

        let second = try await TestPrimary()
        let moved = try await second.pairedCompanion(.watch, stateDirectory: state)
        #expect(moved.nodeID == watch.nodeID)
        let runAgain = Task { await moved.run() }
        let code = await moved.firstEvent(within: patience) { if case .error(let code, _) = $0 { code } else { nil } }
        #expect(code == "PLAN_MISMATCH")
        // run() returns by itself: retrying cannot help.
        await runAgain.value
        await second.stop()
    }
}

/// A companion that cannot reach its primary says so once, not on every retry.
struct UnreachablePrimaryTests {
    @Test func theSameFailureIsReportedOnce() async throws {
        let primary = try await TestPrimary()
        let clock = ManualClock()
        let watch = try await primary.pairedCompanion(.watch, clock: clock)
        await primary.stop()
        let running = Task { await watch.run() }
        let heard = Task {
            var reasons: [String] = []
            for await event in watch.events {
                if case .disconnected(let reason) = event { reasons.append(reason) }
            }
            return reasons
        }
        // Five attempts refused alike: after each the watch waits on its clock, moved past it.
        for _ in 0..<5 {
            await clock.sleeping()
            clock.advance(by: 1)
        }
        await clock.sleeping()
        await watch.stop()
        await running.value
        let reasons = await heard.value
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("cannot reach the primary") == true)
    }
}
