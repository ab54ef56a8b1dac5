import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import SyncProtocol
import Testing
import Clocks

@testable import SyncNode

/// A context after outcome changes alone is the one before with those outcomes applied:
/// it must equal the context read from the store, whatever the outcomes were.
@Suite struct ContextPatchTests {
    @Test func contextsMadeFromTheOneBeforeEqualThoseReadFromTheStore() async throws {
        let primary = try await TestPrimary()
        let store = primary.store
        let publisher = Self.publisher(of: store)
        let variant = try await publisher.variant(for: .widget)
        var revision = try await store.revision()
        var previous = try await published(publisher, variant)
        // Completed, not completed and reset, from two devices, some with a clock older than
        // the standing outcome's (superseded: only the revision moves); a contact saved
        // midway, after which the context is read from the store again.
        let states: [EventState] = [.completed, .notCompleted, .initial]
        var superseded = 0
        for step in 0..<24 {
            let key = EventKey(activityID: "apple", day: variant.today, occurrence: step % 3)
            let physical = Int64(1_000_000 + (step % 5 == 4 ? -step : step) * 1000)
            let outcome = Outcome(
                state: states[step % 3], recordedAt: Date(), device: step % 2 == 0 ? "watch" : "widget",
                clock: HybridTimestamp(physical: physical, node: step % 2 == 0 ? "watch" : "widget"))
            let receipt = try await store.complete(outcome, for: key, messageID: "m\(step)")
            if receipt.superseded { superseded += 1 }
            if step == 12 {
                let contact = try Contact(identifier: "gp", kind: .careTeam, givenName: "Ada")
                _ = try await store.core.plan.saveContact(contact, device: "test")
            }
            let changes = try await store.history(after: revision)
            // One change at a time on odd steps, as the feed may deliver them, else all together.
            if step % 2 == 1 {
                for change in changes { publisher.invalidate(after: [change]) }
            } else {
                publisher.invalidate(after: changes)
            }
            revision = try #require(changes.last?.revision)
            // Compared as companions see them: through the wire (times in whole milliseconds).
            let fresh = try ApplicationContext(wire: try await publisher.build(variant).wire)
            let context = try await published(publisher, variant)
            #expect(context.revision == fresh.revision && context.days == fresh.days, "step \(step): \(Self.difference(context, fresh))")
            // A companion holding the context before gets a delta (made as the changes came in
            // when they were outcomes alone) that gives the same context.
            let delta = try await publisher.frame(variant, holding: previous.held)
            #expect(delta.isDelta, "step \(step)")
            let payload = try #require(delta.frame.getSlice(at: delta.frame.readerIndex + 4, length: delta.frame.readableBytes - 4))
            let applied = try #require(try ContextDelta(wire: Frame.decode(payload).contextDelta).applied(to: previous), "step \(step)")
            #expect(applied.revision == context.revision && applied.days == context.days, "step \(step): \(Self.difference(applied, context))")
            if step != 12 {
                let patched = try ApplicationContext(wire: publisher.applied(changes, to: previous).wire)
                #expect(patched.revision == fresh.revision && patched.days == fresh.days, "step \(step), patched")
            }
            previous = context
        }
        #expect(superseded > 0, "some outcomes lost to the standing one")
        await primary.stop()
    }

    /// Outcomes committed together make one generation (one context for every companion),
    /// and its context is the store's.
    @Test func changesThatCameTogetherMakeOneGeneration() async throws {
        let primary = try await TestPrimary()
        let store = primary.store
        let publisher = Self.publisher(of: store)
        let variant = try await publisher.variant(for: .widget)
        let revision = try await store.revision()
        let before = try await publisher.frame(variant)
        let keys = (0..<3).map { EventKey(activityID: "apple", day: variant.today, occurrence: $0) }
        for key in keys { try await store.record(Outcome(state: .completed, recordedAt: Date(), device: "watch"), for: key) }
        let changes = try await store.history(after: revision)
        #expect(changes.count == 3)
        publisher.invalidate(after: changes)
        let after = try await publisher.frame(variant)
        #expect(after.generation == before.generation + 1)
        let context = try await published(publisher, variant)
        let fresh = try ApplicationContext(wire: try await publisher.build(variant).wire)
        #expect(context.revision == revision + 3 && context.days == fresh.days, "\(Self.difference(context, fresh))")
        await primary.stop()
    }

    /// The plan's time zone is read again only after a change to the plan's settings, not
    /// after every outcome (every connection used to read it at each generation).
    @Test func theTimeZoneIsReadAgainOnlyWhenThePlanIsConfigured() async throws {
        let primary = try await TestPrimary()
        let store = primary.store
        // 23:30 UTC: still today in UTC, already tomorrow in Kiritimati (UTC+14).
        let today = CalendarDay.containing(Date(), in: .gmt)
        let instant = today.date(at: TimeOfDay(hour: 23, minute: 30)!, in: .gmt)
        let publisher = Self.publisher(of: store, now: instant)
        #expect(try await publisher.variant(for: .widget).today == today)
        let revision = try await store.revision()
        let title = try await store.plan.info().title ?? ""
        try await store.core.plan.configure(title: title, timeZone: try #require(TimeZone(identifier: "Pacific/Kiritimati")), device: "test")
        let configured = try await store.history(after: revision)
        let key = EventKey(activityID: "apple", day: today, occurrence: 0)
        let before = try await store.revision()
        try await store.record(Outcome(state: .completed, recordedAt: instant, device: "test"), for: key)
        publisher.invalidate(after: try await store.history(after: before))
        #expect(try await publisher.variant(for: .widget).today == today, "an outcome keeps the zone read")
        publisher.invalidate(after: configured)
        #expect(try await publisher.variant(for: .widget).today == today.adding(days: 1), "the plan's new zone")
        await primary.stop()
    }

    /// A publisher of `store`'s contexts, its clock at `now` (the real clock if `nil`).
    static func publisher(of store: CarePlanStore, now instant: Date? = nil) -> ContextPublisher {
        ContextPublisher(
            store: store, clock: HybridClock(node: "primary"), wallClock: instant.map { ManualClock($0) } ?? SystemClock(),
            tomorrowFrom: TimeOfDay(hour: 20, minute: 0)!)
    }

    static func difference(_ a: ApplicationContext, _ b: ApplicationContext) -> String {
        zip(a.days.flatMap(\.events), b.days.flatMap(\.events)).filter { $0 != $1 }.map { "\($0)\n≠ \($1)" }.joined(separator: "\n")
    }

    /// The context the publisher sends a companion holding none.
    private func published(_ publisher: ContextPublisher, _ variant: ContextPublisher.Variant) async throws -> ApplicationContext {
        let built = try await publisher.frame(variant)
        #expect(!built.isDelta)
        let payload = try #require(built.frame.getSlice(at: built.frame.readerIndex + 4, length: built.frame.readableBytes - 4))
        return try ApplicationContext(wire: Frame.decode(payload).applicationContext)
    }
}
