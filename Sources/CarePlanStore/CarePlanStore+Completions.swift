import CarePlan
import Foundation
import GRDB

extension CarePlanStore {
    /// Judges a completion that another node sent under `messageID`, in one transaction:
    /// a repeated id returns the first answer and writes nothing; an invalid completion is
    /// rejected (and the rejection remembered); a valid one is recorded, standing or
    /// superseded by the conflict rule. Returns once the answer is committed.
    ///
    /// - Throws: only failures that are not the completion's fault (a full disk, say);
    ///   the sender should try again later.
    public func applyCompletion(messageID: String, key: EventKey, outcome: Outcome) async throws(CarePlanStoreError) -> CompletionReceipt {
        try await write { [self] db in try judge(db, messageID: messageID, key: key, outcome: outcome) }
    }

    /// The latest clock any recorded outcome carries, so a node can continue after it.
    public func latestClock() async throws(CarePlanStoreError) -> HybridTimestamp? {
        try await read { db in
            try db.row(
                "SELECT clock_ms, clock_logical, device FROM change WHERE clock_ms IS NOT NULL ORDER BY clock_ms DESC, clock_logical DESC, device DESC LIMIT 1"
            ).map { HybridTimestamp(physical: $0[0], logical: UInt32($0[1] as Int64), node: $0[2]) }
        }
    }

    private func judge(_ db: Database, messageID: String, key: EventKey, outcome: Outcome) throws -> CompletionReceipt {
        if let stored = try db.value(String.self, "SELECT receipt FROM sync_message WHERE message_id = ?", arguments: [messageID]) {
            var receipt = try StoredJSON.decode(CompletionReceipt.self, from: stored)
            receipt.isRepeat = true
            return receipt
        }
        let receipt: CompletionReceipt
        do {
            let change = try recordOutcome(db, outcome, for: key, messageID: messageID)
            let superseded = change.kind == .outcomeSuperseded
            receipt = CompletionReceipt(
                messageID: messageID, status: .accepted, revision: change.revision, superseded: superseded,
                currentState: superseded ? try currentOutcome(db, key)?.state ?? .initial : outcome.state)
        } catch let error as CarePlanStoreError {
            guard let rejection = Rejection(error) else { throw error }
            receipt = CompletionReceipt(
                messageID: messageID, status: .rejected,
                currentState: rejection == .unknownActivity ? .initial : try currentOutcome(db, key)?.state ?? .initial,
                rejection: rejection, detail: error.description)
        }
        try db.run(
            "INSERT INTO sync_message (message_id, revision, receipt) VALUES (?, ?, ?)",
            arguments: [messageID, receipt.revision, try StoredJSON.encode(receipt)])
        return receipt
    }
}
