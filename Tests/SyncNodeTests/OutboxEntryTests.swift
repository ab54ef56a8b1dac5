import CarePlan
@testable import SyncNode
import SyncProtocol
import Testing
import Waiting

/// A completion's life in the companion's outbox, between the caller of `complete` and the
/// session's sender, without a connection.
struct OutboxEntryTests {
    let accepted = CompletionResult.accepted(revision: 7, superseded: false, state: .completed)
    /// A clock nobody moves: a timeout on it never fires first, so the wait ends only by the
    /// answer (or cancellation).
    let never = ManualClock()

    func entry(awaited: Bool) -> OutboxEntry {
        OutboxEntry(CompletionMessage(wire: .with { $0.messageID = "m1" }), awaited: awaited)
    }

    @Test func theAnswerReachesAWaitingCallerAndIsNewsOnce() async throws {
        let entry = entry(awaited: true)
        let caller = Task { await entry.answer(within: .seconds(60), clock: never) }
        #expect(!entry.isAnswered)
        #expect(entry.answered(accepted))
        // A resend after a lost connection gets the stored answer again: not news.
        #expect(!entry.answered(.rejected(.unknownActivity, detail: "")))
        #expect(entry.isAnswered)
        #expect(await caller.value == accepted)
    }

    @Test func anAnswerThatCameFirstIsKept() async {
        let entry = entry(awaited: true)
        #expect(entry.answered(accepted))
        #expect(await entry.answer(within: .seconds(60), clock: never) == accepted)
    }

    @Test func aCallerThatGivesUpLeavesItQueued() async {
        let entry = entry(awaited: true)
        #expect(entry.isAwaited)
        // The clock jumps past the timeout once the wait has begun: no real time passes.
        let clock = ManualClock()
        let waiting = Task { await entry.answer(within: .seconds(5), clock: clock) }
        #expect(await withTimeout(patience) { await clock.sleeping(); return true } == true)
        clock.advance(by: 5)
        #expect(await waiting.value == nil)
        entry.stopAwaiting()
        #expect(!entry.isAwaited)
        #expect(!self.entry(awaited: false).isAwaited)
    }
}
