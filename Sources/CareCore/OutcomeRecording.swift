import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The one way an outcome enters the record, for a watch, a widget, a household device, the
/// care app and the command line alike.
///
/// The recorder's grant is judged first (a refusal there writes and keeps nothing). Then the
/// store judges the rest in the completion's own transaction, so that the judgement and the
/// write cannot part: the event exists in the plan version governing its day, the day is not
/// after today in the plan's time zone, the values fit the activity's result, a repeated
/// message id gets its first answer, and the conflict clock decides which outcome stands.
public struct OutcomeRecording: Sendable {
    let store: CarePlanStore

    /// Records `outcome` for the event `key` as `recorder` asks, once per `messageID` (a new
    /// id when `nil`: a command that is not sent again). Returns once the answer is durable.
    ///
    /// - Throws: only failures that are not the outcome's fault (a full disk, say).
    public func record(
        _ outcome: Outcome, for key: EventKey, messageID: String? = nil, by recorder: Recorder
    ) async throws(CarePlanStoreError) -> CompletionReceipt {
        let messageID = messageID ?? Self.newMessageID(for: recorder)
        guard recorder.mayRecord else { return Self.notPermitted(messageID, recorder) }
        return try await store.outcomes.applyCompletion(messageID: messageID, key: key, outcome: outcome, futureDays: recorder.futureDays)
    }

    /// Records as ``record(_:for:messageID:by:)`` does, handing `done` the answer without a
    /// task: at once when refused before the store, else on the store's writer thread once
    /// committed (`done` must return quickly there: the next commit waits for it).
    public func record(
        _ outcome: Outcome, for key: EventKey, messageID: String, by recorder: Recorder,
        then done: @escaping @Sendable (Result<CompletionReceipt, CarePlanStoreError>) -> Void
    ) {
        guard recorder.mayRecord else { return done(.success(Self.notPermitted(messageID, recorder))) }
        store.outcomes.applyCompletion(messageID: messageID, key: key, outcome: outcome, futureDays: recorder.futureDays, then: done)
    }

    /// The values `texts` give for the event `key`'s result, read as its kind asks and checked
    /// as the record will check them (``Activity/checkResult(_:)``), so that a person hears
    /// exactly what does not fit (a typed ``ResultError``) before anything is sent.
    public func values(_ texts: [String], unit: String? = nil, for key: EventKey) async throws -> [OutcomeValue] {
        let activity = try await store.outcomes.event(key).activity
        let values = try activity.result?.values(from: texts, unit: unit) ?? ResultKind.untypedValues(from: texts, unit: unit)
        try activity.checkResult(values)
        return values
    }

    /// A refusal of the recorder itself: nothing is written, and nothing kept under the id.
    private static func notPermitted(_ messageID: String, _ recorder: Recorder) -> CompletionReceipt {
        CompletionReceipt(
            messageID: messageID, status: .rejected, currentState: nil, rejection: .notPermitted, detail: recorder.notPermittedDetail)
    }

    private static func newMessageID(for recorder: Recorder) -> String {
        "\(recorder.device):\(UUID().uuidString.lowercased())"
    }
}
