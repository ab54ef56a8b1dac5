import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The one way an outcome enters the record, for a watch, a widget, a household device, the
/// care app and the command line alike.
///
/// The recorder's grant is judged first (a refusal there writes and keeps nothing); then
/// ``OutcomeRules``, in the completion's own transaction, in a group commit with the
/// completions that arrived meanwhile.
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
        let answer = await withCheckedContinuation { answered in
            record(outcome, for: key, messageID: messageID, by: recorder) { answered.resume(returning: $0) }
        }
        return try answer.get()
    }

    /// Records as ``record(_:for:messageID:by:)`` does and hands `done` the answer without a
    /// task: at once when the grant refuses, else on the store's writer thread once committed
    /// (`done` must return quickly there: the next commit waits for it). The lane a
    /// connection's event loop takes (`CompletionIntake`), which buys (A/B, `caresync-bench
    /// sync --security tls`, release, four runs each) at 100 companions a round trip of 0.97 ms
    /// at p50 and 2,208 completions a second, against 1.44 ms and 1,777 through a task.
    public func record(
        _ outcome: Outcome, for key: EventKey, messageID: String, by recorder: Recorder,
        then done: @escaping @Sendable (Result<CompletionReceipt, CarePlanStoreError>) -> Void
    ) {
        guard recorder.mayRecord else { return done(.success(Self.notPermitted(messageID, recorder))) }
        let futureDays = recorder.futureDays
        store.commitTogether({ record in
            try OutcomeRules.judge(record, outcome, for: key, messageID: messageID, futureDays: futureDays)
        }, then: done)
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
