import CarePlan
import GRDB

/// A completion's judgement, made by the care core inside the transaction it is given.
@_spi(CareCore) public typealias CompletionJudgement = @Sendable (RecordTransaction) throws -> CompletionReceipt

extension CarePlanStore {
    /// Runs `judgement` in a savepoint of one transaction with the judgements that arrived
    /// while another commit was in flight (one fsync for all, in the order they came, each
    /// judged exactly as it would be alone), and hands `done` its answer on the store's
    /// writer thread once committed, without a task: a connection's event loop can pass
    /// completions straight to the writer. `done` must return quickly: the next commit
    /// waits for it. A judgement that throws (the database refused a write) is rolled back
    /// alone; a commit that fails fails all.
    @_spi(CareCore) public func commitTogether(
        _ judgement: @escaping CompletionJudgement,
        then done: @escaping @Sendable (Result<CompletionReceipt, CarePlanStoreError>) -> Void
    ) {
        completions.submit(judgement, schedule: commitStep, then: done)
    }

    /// Runs a group commit's step on the writer's queue; the change feed hears of its
    /// changes once the step has handed the answers on.
    private var commitStep: GroupCommit<CompletionJudgement, CompletionReceipt>.Schedule {
        { [self] step in
            pool.asyncWriteWithoutTransaction { [self] db in
                holdingChangeLogObservers(db) { step { batch in self.runTogether(batch, in: db) } }
            }
        }
    }

    /// Runs the core's judgements of `batch` in one transaction, each in a savepoint of its own.
    private func runTogether(_ batch: [CompletionJudgement], in db: Database) -> [Result<CompletionReceipt, CarePlanStoreError>] {
        var results: [Result<CompletionReceipt, CarePlanStoreError>] = []
        let transaction = RecordTransaction(db: db, store: self)
        do {
            try db.transaction {
                results = try batch.map { judgement in
                    // A savepoint of its own, through cached statements (GRDB's inSavepoint
                    // compiles its SAVEPOINT and RELEASE anew each time).
                    try db.run("SAVEPOINT judge")
                    let result: Result<CompletionReceipt, CarePlanStoreError>
                    do {
                        result = .success(try judgement(transaction))
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
}
