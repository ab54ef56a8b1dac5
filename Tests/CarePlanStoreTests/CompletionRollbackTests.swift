import CarePlanStore
import CarePlan
@testable import CarePlanStore
import Foundation
import GRDB
import Testing

/// A completion that the database refuses half-way through its judging (after its change
/// was written, before its answer was) leaves nothing behind, and the others judged in
/// the same commit stand.
struct CompletionRollbackTests {
    let scratch = Scratch()

    @Test func aCompletionThatFailsHalfWayIsUndoneAloneInItsBatch() async throws {
        let store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        try await store.core.plan.addActivity(intervention("apple", times: ["08:00", "12:00", "20:00"]), effectiveFrom: monday, device: "t")
        // On the writer's connection only: answering message "boom" fails.
        try await store.pool.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON completion_receipt WHEN NEW.message_id = 'boom'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
        }
        let revision = try await store.revision()
        let outcome = Outcome(state: .completed, recordedAt: monday.date(at: TimeOfDay("09:00")!, in: .gmt), device: "watch")
        let messages = ["ok-0", "boom", "ok-2"]
        let results = await withTaskGroup(of: (Int, Result<CompletionReceipt, CarePlanStoreError>).self) { group in
            for (occurrence, id) in messages.enumerated() {
                group.addTask {
                    let key = EventKey(activityID: "apple", day: monday, occurrence: occurrence)
                    do throws(CarePlanStoreError) {
                        return (occurrence, .success(try await store.complete(outcome, for: key, messageID: id)))
                    } catch {
                        return (occurrence, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<CompletionReceipt, CarePlanStoreError>]()) { $0[$1.0] = $1.1 }
        }
        #expect((try? results[0]?.get())?.status == .accepted)
        #expect((try? results[2]?.get())?.status == .accepted)
        guard case .failure = results[1] else {
            Issue.record("the refused completion was answered: \(String(describing: results[1]))")
            return
        }
        // Two changes, not three: the refused one's change and outcome went with its savepoint.
        #expect(try await store.revision() == revision + 2)
        let states = try await store.outcomes.events(on: monday).map(\.state)
        #expect(states == [.completed, .initial, .completed])
        // Once the database accepts it, the same message is judged afresh.
        try await store.pool.write { db in try db.execute(sql: "DROP TRIGGER refuse_boom") }
        let retried = try await store.complete(outcome, for: EventKey(activityID: "apple", day: monday, occurrence: 1), messageID: "boom")
        #expect(retried.status == .accepted && !retried.isRepeat)
    }
}
