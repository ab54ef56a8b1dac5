import CarePlan
import CarePlanStore
import Foundation
import GRDB
@testable import SyncNode
import SyncProtocol
import Testing
import Waiting

/// A completion whose connection ends before its answer: the caller hears "queued" at once,
/// not at the reply timeout, and the answer that comes on the next connection is reported.
struct LostConnectionTests {
    @Test func aCompletionWhoseConnectionEndsIsQueuedAtOnceAndAnsweredLater() async throws {
        let primary = try await TestPrimary()
        // The watch's clock never moves by itself: its reply timeout cannot be what ends the wait.
        let clock = ManualClock(Date())
        let watch = try await primary.pairedCompanion(.watch, clock: clock)
        let running = Task { await watch.run() }
        let context = try #require(await firstContext(watch))
        let key = try #require(context.incomplete.first?.key)

        // Another process holds the store's write lock: the primary cannot commit, nor answer.
        let holder = try DatabaseQueue(path: primary.store.path)
        let (locked, release) = (Eventual<Void>(), DispatchSemaphore(value: 0))
        Thread {
            try? holder.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.raise()
                release.wait()
                try db.execute(sql: "COMMIT")
            }
        }.start()
        try await locked.value
        let completed = Eventual<CompletionResult>()
        Task {
            do { completed.resolve(.success(try await watch.complete(key))) } catch { completed.resolve(.failure(error)) }
        }
        try await waitFor("the completion in the outbox", seen: { "\(watch.pending)" }) { watch.pending == [key] }
        await primary.node.connections.cut(device: watch.nodeID, with: .goodbye(.shutdown, detail: "cut by the test"))
        #expect(await completed.value(within: patience) == .queued)

        // Released, and the watch back (its backoff waits on its clock, moved until it is):
        // the answer is reported.
        release.signal()
        let answer = Eventual<CompletionResult?>()
        Task { answer.resolve(.success(await watch.firstEvent(within: patience) { if case .reply(_, key, let result) = $0 { result } else { nil } })) }
        try await waitFor("the answer on the next connection") {
            clock.advance(by: 60)
            return answer.isResolved
        }
        guard case .accepted = try await answer.value else {
            Issue.record("expected the answer on the next connection, got \(String(describing: try await answer.value))")
            return
        }
        #expect(try await primary.store.outcomes.event(key).outcome?.state == .completed)
        await watch.stop()
        await running.value
        await primary.stop()
    }
}
