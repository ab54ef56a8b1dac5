import CarePlan
import Foundation
import GRDB

extension OutcomeStore {
    /// Judges a completion that another node sent under `messageID`, in one transaction:
    /// a repeated id returns the first answer and writes nothing; an invalid completion is
    /// rejected (and the rejection remembered); a valid one is recorded, standing or
    /// superseded by the conflict rule. Returns once the answer is committed.
    ///
    /// Completions that arrive while another commit is in flight are judged together in the
    /// next transaction (one fsync for all), each in its own savepoint, in the order they
    /// came: each is judged exactly as it would be alone.
    ///
    /// - Throws: only failures that are not the completion's fault (a full disk, say);
    ///   the sender should try again later.
    @_spi(CareCore) public func applyCompletion(
        messageID: String, key: EventKey, outcome: Outcome, futureDays: FutureDays = .refused
    ) async throws(CarePlanStoreError) -> CompletionReceipt {
        try await store.completions.submit(
            SentCompletion(messageID: messageID, key: key, outcome: outcome, futureDays: futureDays), schedule: commitStep)
    }

    /// Judges a completion as ``applyCompletion(messageID:key:outcome:)`` does, and hands
    /// `done` the answer (or the failure) on the store's writer thread once it is committed,
    /// without a task: a connection's event loop can pass completions straight to the writer.
    /// `done` must return quickly (hand the answer on): the next commit waits for it.
    @_spi(CareCore) public func applyCompletion(
        messageID: String, key: EventKey, outcome: Outcome, futureDays: FutureDays = .refused,
        then done: @escaping @Sendable (Result<CompletionReceipt, CarePlanStoreError>) -> Void
    ) {
        store.completions.submit(
            SentCompletion(messageID: messageID, key: key, outcome: outcome, futureDays: futureDays), schedule: commitStep, then: done)
    }

    /// Runs a group commit's step on the writer's queue; the change feed hears of its
    /// changes once the step has handed the answers on.
    private var commitStep: GroupCommit<SentCompletion, CompletionReceipt>.Schedule {
        { [self] step in
            store.pool.asyncWriteWithoutTransaction { [self] db in
                store.holdingChangeLogObservers(db) { step { batch in self.judgeTogether(batch, in: db) } }
            }
        }
    }

    /// A completion waiting for its group commit.
    struct SentCompletion: Sendable {
        var messageID: String
        var key: EventKey
        var outcome: Outcome
        var futureDays: FutureDays
    }

    /// Judges `batch` in one transaction on the writer's thread; a completion whose judging
    /// fails (not a rejection: the database refused a write) is rolled back alone, and a
    /// commit that fails fails all.
    private func judgeTogether(_ batch: [SentCompletion], in db: Database) -> [Result<CompletionReceipt, CarePlanStoreError>] {
        var results: [Result<CompletionReceipt, CarePlanStoreError>] = []
        do {
            try db.transaction {
                results = try batch.map { sent in
                    // A savepoint of its own, through cached statements (GRDB's inSavepoint
                    // compiles its SAVEPOINT and RELEASE anew each time).
                    try db.run("SAVEPOINT judge")
                    let result: Result<CompletionReceipt, CarePlanStoreError>
                    do {
                        result = .success(try judge(db, sent))
                    } catch {
                        result = .failure(CarePlanStoreError(error, path: path))
                        try db.run("ROLLBACK TO judge")
                    }
                    try db.run("RELEASE judge")
                    return result
                }
            }
            return results
        } catch {
            return Array(repeating: .failure(CarePlanStoreError(error, path: path)), count: batch.count)
        }
    }

    /// The latest clock any recorded outcome carries, so a node can continue after it.
    public func latestClock() async throws(CarePlanStoreError) -> HybridTimestamp? {
        try await read { db in
            try db.row(
                "SELECT clock_ms, clock_logical, device FROM change WHERE clock_ms IS NOT NULL ORDER BY clock_ms DESC, clock_logical DESC, device DESC LIMIT 1"
            ).map { HybridTimestamp(physical: $0[0], logical: UInt32($0[1] as Int64), node: $0[2]) }
        }
    }

    private func judge(_ db: Database, _ sent: SentCompletion) throws -> CompletionReceipt {
        let (messageID, key, outcome) = (sent.messageID, sent.key, sent.outcome)
        if let answered = try CompletionReceipt.fetch(messageID, in: db) { return answered }
        let receipt: CompletionReceipt
        do {
            let change = try recordOutcome(db, outcome, for: key, messageID: messageID, futureDays: sent.futureDays)
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
        try receipt.insert(into: db)
        return receipt
    }
}
