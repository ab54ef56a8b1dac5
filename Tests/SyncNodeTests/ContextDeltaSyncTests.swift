import CarePlanStore
import CarePlan
import Foundation
import GRDB
@testable import SyncNode
import SyncProtocol
import Testing

/// Companions that apply ContextDeltas (protocol section 10) beside ones that do not.
@Suite(.serialized) struct ContextDeltaSyncTests {
    let scratch = Scratch()

    /// Waits until `companion` holds a context at `revision` or later, and returns it.
    func context(of companion: CompanionNode, atLeast revision: Int) async throws -> ApplicationContext {
        let reached = await companion.firstEvent(within: patience) { event -> ApplicationContext? in
            if case .context(let context) = event, context.revision >= revision { context } else { nil }
        }
        if let reached { return reached }
        return try #require(companion.context.flatMap { $0.revision >= revision ? $0 : nil }, "no context at revision \(revision)")
    }

    /// Both see the same events at each revision, whatever form the context travelled in.
    @Test func aWatchApplyingDeltasShowsWhatASnapshotOnlyWatchShows() async throws {
        let primary = try await TestPrimary()
        let applying = try await primary.pairedCompanion(.watch)
        let wholeOnly = try await primary.pairedCompanion(.watch, contextDeltas: false)
        let runs = [Task { await applying.run() }, Task { await wholeOnly.run() }]
        var context = try await context(of: applying, atLeast: 1)
        for key in context.incomplete.prefix(3).map(\.key) {
            guard case .accepted(let revision, _, _) = try await applying.complete(key) else {
                Issue.record("\(key) was not accepted")
                break
            }
            context = try await self.context(of: applying, atLeast: revision)
            let whole = try await self.context(of: wholeOnly, atLeast: revision)
            #expect(context.item(key)?.state == .completed)
            #expect(context.days == whole.days && context.revision == whole.revision)
        }
        #expect(context.incomplete.count == context.days.count * 3 - 3)
        for companion in [applying, wholeOnly] { await companion.stop() }
        for run in runs { await run.value }
        await primary.stop()
    }

    /// The deltas `file` keeps, their bytes, and the bytes of the whole context it keeps.
    func kept(in file: DatabaseQueue) async throws -> (count: Int, bytes: Int, whole: Int) {
        try await file.read { db in
            let deltas = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(length(payload)), 0) FROM context_delta")!
            return (deltas[0], deltas[1], try Int.fetchOne(db, sql: "SELECT length(value) FROM setting WHERE key = 'context'") ?? 0)
        }
    }

    /// A widget keeps each delta as it came, writes the context whole again once the deltas
    /// would outweigh it (by up to twice), and reads the same context back after a restart. (Each delta is
    /// written as soon as it is applied, to see the rule at work delta by delta.)
    @Test func deltasAreKeptAsTheyCameAndReadBackAfterARestart() async throws {
        let primary = try await TestPrimary()
        let directory = scratch.path("companion")
        let widget = try await primary.pairedCompanion(.widget, stateDirectory: directory, contextWriteDelay: .zero)
        let running = Task { await widget.run() }
        var context = try await context(of: widget, atLeast: 1)
        let keys = context.days[0].events.map(\.key)
        let file = try DatabaseQueue(path: directory + "/companion.sqlite")
        func kept() async throws -> (count: Int, bytes: Int, whole: Int) { try await self.kept(in: file) }
        var rewrites = 0
        var most = 0
        for round in 0..<400 where rewrites < 2 {
            let state: EventState = round % 2 == 0 ? .completed : .notCompleted
            guard case .accepted(let revision, _, _) = try await widget.complete(keys[round % keys.count], state: state) else {
                Issue.record("round \(round) was not accepted")
                break
            }
            context = try await self.context(of: widget, atLeast: revision)
            let now = try await kept()
            #expect(now.bytes <= 2 * now.whole, "round \(round): \(now.bytes) bytes of deltas over twice a whole context of \(now.whole)")
            if now.count < most { rewrites += 1 }
            most = now.count
        }
        #expect(rewrites == 2, "the whole context was written again \(rewrites) times")
        await widget.stop()
        await running.value
        try file.close()
        let back = try await makeCompanion(.widget, endpoint: primary.endpoint, stateDirectory: directory)
        #expect(back.context?.revision == context.revision && back.context?.days == context.days)
        await primary.stop()
    }

    /// A watch shows each delta at once and writes it behind, with those that follow it:
    /// its file holds none of them while the write delay runs (here, an hour), and all of
    /// them once it stops; after a restart it holds the context it showed last.
    @Test func deltasAreWrittenBehindAndAStopWritesThoseWaiting() async throws {
        let primary = try await TestPrimary()
        // A day of 33 events: a context large enough that a completion travels as a delta.
        let today = CalendarDay.containing(Date(), in: .gmt)
        for n in 0..<10 {
            let activity = try Activity(identifier: "pear-\(n)", kind: .intervention, title: "Pear \(n)", schedule: .daily(occurrences: 3, start: today))
            try await primary.store.core.plan.addActivity(activity, effectiveFrom: today, device: "test")
        }
        let directory = scratch.path("companion")
        let watch = try await primary.pairedCompanion(.watch, stateDirectory: directory, contextWriteDelay: .seconds(3600))
        let running = Task { await watch.run() }
        var context = try await context(of: watch, atLeast: 1)
        let file = try DatabaseQueue(path: directory + "/companion.sqlite")
        let first = try await kept(in: file)
        for key in context.days[0].events.prefix(3).map(\.key) {
            guard case .accepted(let revision, _, _) = try await watch.complete(key) else {
                Issue.record("\(key) was not accepted")
                break
            }
            context = try await self.context(of: watch, atLeast: revision)
            #expect(context.item(key)?.state == .completed)
        }
        let waiting = try await kept(in: file)
        #expect(waiting.count == 0 && waiting.whole == first.whole && first.whole > 0, "\(first) \(waiting)")
        await watch.stop()
        await running.value
        let written = try await kept(in: file)
        #expect(written.count > 0 && written.bytes <= 2 * written.whole, "\(written)")
        try file.close()
        let back = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: directory)
        #expect(back.context?.revision == context.revision && back.context?.days == context.days)
        await primary.stop()
    }

    /// A watch whose cached context lacks an event the primary changes cannot apply the
    /// delta: it asks for the whole context and shows the change.
    @Test func aDeltaThatDoesNotApplyIsFollowedByAWholeContext() async throws {
        let primary = try await TestPrimary()
        let directory = scratch.path("companion")
        let watch = try await primary.pairedCompanion(.watch, stateDirectory: directory)
        var running = Task { await watch.run() }
        let held = try await context(of: watch, atLeast: 1)
        await watch.stop()
        await running.value

        // The cached context loses the second event of today; its name stays the same.
        let lost = held.days[0].events[1].key
        let queue = try DatabaseQueue(path: directory + "/companion.sqlite")
        try await queue.write { db in
            let stored = try #require(try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'context'"))
            var envelope = try Caresync_V1_Envelope(serializedBytes: stored)
            envelope.applicationContext.days[0].events.remove(at: 1)
            try db.execute(sql: "UPDATE setting SET value = ? WHERE key = 'context'", arguments: [try envelope.serializedData()])
        }
        try queue.close()

        // Another watch completes that event while the first is away.
        let other = try await primary.pairedCompanion(.watch, contextDeltas: false)
        let otherRun = Task { await other.run() }
        _ = try await context(of: other, atLeast: 1)
        guard case .accepted(let revision, _, _) = try await other.complete(lost) else {
            Issue.record("the completion was not accepted")
            return
        }

        let back = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: directory)
        #expect(back.context?.item(lost) == nil)
        running = Task { await back.run() }
        let recovered = try await context(of: back, atLeast: revision)
        #expect(recovered.item(lost)?.state == .completed)
        #expect(recovered.days.map(\.events.count) == held.days.map(\.events.count))
        for companion in [back, other] { await companion.stop() }
        await running.value
        await otherRun.value
        await primary.stop()
    }
}
