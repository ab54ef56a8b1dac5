import CarePlanStore
import CarePlan
@testable import CarePlanStore
import Foundation
import GRDB
import Testing

/// Answers to completions that a store kept as JSON before migration v11 are given again,
/// as repeats, once the store keeps them as columns.
struct ReceiptMigrationTests {
    let scratch = Scratch()

    @Test func answersKeptAsJSONAreRepeatedAfterTheMigration() async throws {
        let path = scratch.path("old.sqlite")
        do {
            let pool = try DatabasePool(path: path)
            try Schema.migrator.migrate(pool, upTo: "v10 web sessions")
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO sync_message (message_id, revision, receipt) VALUES
                      ('accepted-1', 7, '{"currentState":"completed","isRepeat":false,"messageID":"accepted-1","revision":7,"status":"accepted","superseded":true}'),
                      ('rejected-1', NULL, '{"currentState":"initial","detail":"no activity pear","isRepeat":false,"messageID":"rejected-1","rejection":"unknownActivity","status":"rejected","superseded":false}')
                    """)
            }
        }
        let store = try await CarePlanStore(path: path)
        try await store.core.plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        let key = EventKey(activityID: "apple", day: monday, occurrence: 0)
        let revision = try await store.revision()
        let outcome = Outcome(state: .notCompleted, recordedAt: monday.date(at: TimeOfDay("09:00")!, in: .gmt), device: "watch")

        let accepted = try await store.complete(outcome, for: key, messageID: "accepted-1")
        #expect(accepted == CompletionReceipt(
            messageID: "accepted-1", status: .accepted, revision: 7, superseded: true, currentState: .completed, isRepeat: true))
        let rejected = try await store.complete(outcome, for: key, messageID: "rejected-1")
        #expect(rejected == CompletionReceipt(
            messageID: "rejected-1", status: .rejected, currentState: .initial, rejection: .unknownActivity,
            detail: "no activity pear", isRepeat: true))
        #expect(try await store.revision() == revision)

        // A new message is judged and its answer kept in the new table.
        let fresh = try await store.complete(outcome, for: key, messageID: "fresh")
        #expect(fresh.status == .accepted && !fresh.isRepeat)
        let again = try await store.complete(outcome, for: key, messageID: "fresh")
        #expect(again.isRepeat && again.revision == fresh.revision && again.currentState == .notCompleted)
    }
}
