import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The rules an outcome is judged by, read from the record inside the transaction that
/// keeps it, so that the judgement and the write cannot part. The recorder's grant is judged
/// before (``OutcomeRecording``); these follow, in this order:
///
/// 1. **Once per message**: a message id already answered gets its first answer, and nothing
///    changes.
/// 2. **The version in force**: the event exists in the plan version that governs its day,
///    and the outcome is kept with that version.
/// 3. **No day after today** in the plan's time zone, unless the recorder may back-fill.
/// 4. **Resetting** an assessment (state `initial`) needs a result that may be reset.
/// 5. **The values** of a completed outcome fit the activity's result.
/// 6. **The conflict clock**: an outcome stands unless the event's outcome has a later clock
///    (then it is kept in the history, superseded); an outcome without a clock, a change made
///    here, gets one later than the event's, so it stands.
///
/// A refusal by rules 2 to 5 is an answer (a rejection), kept under the message id.
enum OutcomeRules {
    /// Judges the outcome a message brought (rule 1, then ``keep(_:_:for:messageID:futureDays:)``),
    /// and keeps the answer under `messageID`.
    static func judge(
        _ record: RecordTransaction, _ outcome: Outcome, for key: EventKey, messageID: String, futureDays: FutureDays
    ) throws -> CompletionReceipt {
        if let answered = try record.outcomes.answer(to: messageID) { return answered }
        let receipt: CompletionReceipt
        do {
            let change = try keep(record, outcome, for: key, messageID: messageID, futureDays: futureDays)
            let superseded = change.kind == .outcomeSuperseded
            receipt = CompletionReceipt(
                messageID: messageID, status: .accepted, revision: change.revision, superseded: superseded,
                currentState: superseded ? try record.outcomes.outcome(of: key)?.state ?? .initial : outcome.state)
        } catch let error as CarePlanStoreError {
            guard let rejection = Rejection(error) else { throw error }
            receipt = CompletionReceipt(
                messageID: messageID, status: .rejected,
                currentState: rejection == .unknownActivity ? .initial : try record.outcomes.outcome(of: key)?.state ?? .initial,
                rejection: rejection, detail: error.description)
        }
        try record.outcomes.keep(receipt)
        return receipt
    }

    /// Keeps `outcome` for the event `key` once rules 2 to 5 allow it, standing or superseded
    /// by rule 6.
    ///
    /// - Throws: the refusing rule's ``CarePlanStoreError``.
    static func keep(
        _ record: RecordTransaction, _ outcome: Outcome, for key: EventKey, messageID: String?, futureDays: FutureDays
    ) throws -> StoreChange {
        let version = try record.outcomes.version(governing: key)
        try checkDay(of: key, in: record, futureDays: futureDays)
        try checkResult(outcome, for: key, of: version.activity)
        let current = try record.outcomes.outcome(of: key)
        var outcome = outcome
        let clock = outcome.clock ?? .next(after: current?.clock, now: record.now, node: outcome.device)
        outcome.clock = clock
        let stands = current?.clock.map { clock > $0 } ?? true
        return try record.outcomes.keep(outcome, for: key, version: version.version, messageID: messageID, stands: stands)
    }

    /// Rule 3: the event's day is not after today where the patient lives.
    static func checkDay(of key: EventKey, in record: RecordTransaction, futureDays: FutureDays) throws {
        guard futureDays == .refused, let zone = try record.planTimeZone() else { return }
        let today = CalendarDay.containing(record.now, in: zone)
        guard key.day <= today else { throw CarePlanStoreError.futureDay(key, today: today, timeZone: zone.identifier) }
    }

    /// Rules 4 and 5: a reset only of what may be reset, and values that fit.
    static func checkResult(_ outcome: Outcome, for key: EventKey, of activity: Activity) throws(CarePlanStoreError) {
        if outcome.state == .initial, activity.kind == .assessment, !activity.resultResettable {
            throw .notResettable(key.activityID)
        }
        guard outcome.state == .completed else { return }
        do {
            try activity.checkResult(outcome.values)
        } catch {
            throw .invalidResult(key, error)
        }
    }
}
