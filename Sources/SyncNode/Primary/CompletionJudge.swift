import CareCore
import CarePlan
import CarePlanStore
import Logging
import SyncProtocol

/// Answers one connection's completions (protocol section 11): what the wire asks first (a
/// message id, a well-formed outcome, the primary's clock), then the care core's judgement
/// (the grant, then the store's group commit), then the reply, counted in the primary's metrics.
///
/// It speaks domain values only: the completion as SyncProtocol's ``CompletionMessage`` (the
/// decoded message behind it, read without a copy), its answer as a ``CompletionJudgement``,
/// which ``CompletionIntake``, at the edge, writes as a frame.
struct CompletionJudge: Sendable {
    let node: PrimaryNode
    let peer: PrimaryConnection.Peer
    let logger: Logger

    /// Judges `completion` without a task waiting for the commit: `answer` gets the reply,
    /// at once if it is refused before the store, else through `hop` from the store's writer
    /// thread once committed (`hop` takes the rest off that thread, where the next commit waits).
    func judge(
        _ completion: CompletionMessage, hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        then answer: @escaping @Sendable (CompletionJudgement) -> Void
    ) {
        let started = ContinuousClock.now
        let metrics = node.metrics
        let finish: @Sendable (CompletionJudgement, String) -> Void = { reply, status in
            metrics.completions[status]?.increment()
            metrics.completionTime.record(duration: started.duration(to: .now))
            answer(reply)
        }
        switch check(completion) {
        case .refused(let reply, let status):
            finish(reply, status)
        case .record(let key, let outcome):
            let recorder = Recorder.companion(nodeID: peer.nodeID, role: peer.role, mayRecord: peer.mayRecord)
            node.core.outcomes.record(outcome, for: key, messageID: completion.messageID, by: recorder) { result in
                hop {
                    let (reply, status) = self.reply(to: completion.messageID, result)
                    finish(reply, status)
                }
            }
        }
    }

    private enum Check {
        /// Answered without the store, and how it went for the metrics.
        case refused(CompletionJudgement, status: String)
        case record(EventKey, Outcome)
    }

    private func check(_ completion: CompletionMessage) -> Check {
        do throws(ProtocolError) {
            guard !completion.messageID.isEmpty else { throw ProtocolError.malformed("a completion without a message id") }
            var outcome = try completion.outcome(device: peer.nodeID)
            // The primary's clock orders a completion that brings none by its arrival.
            outcome.clock = outcome.clock.map(node.clock.observe) ?? node.clock.tick(now: node.configuration.clock.now)
            return .record(try completion.eventKey(), outcome)
        } catch {
            logger.notice("refused a completion", metadata: [
                "messageID": "\(completion.messageID)", "code": "\(error.code)", "reason": "\(error.message)",
            ])
            var refusal = error
            refusal.isFatal = false
            return .refused(.refused(refusal, messageID: completion.messageID), status: "refused")
        }
    }

    /// The reply to a completion the store has judged (accepted or rejected) or could not
    /// record (then the companion sends it again later).
    private func reply(to messageID: String, _ result: Result<CompletionReceipt, CarePlanStoreError>) -> (CompletionJudgement, String) {
        switch result {
        case .success(let receipt):
            logger.debug("completion judged", metadata: [
                "messageID": "\(messageID)", "status": "\(receipt.status)", "revision": "\(receipt.revision ?? 0)",
                "reason": "\(receipt.rejection.map { "\($0)" } ?? "")",
            ])
            let reply = CompletionJudgement.judged(
                messageID: messageID, revision: receipt.revision, superseded: receipt.superseded,
                state: receipt.currentState, rejection: receipt.rejection, detail: receipt.detail)
            return (reply, receipt.status == .accepted ? "accepted" : "rejected")
        case .failure(let error):
            logger.error("the store could not record a completion; the companion will send it again", metadata: [
                "messageID": "\(messageID)", "error": "\(error)",
            ])
            let failure = ProtocolError(.internal, "the store could not record it: \(error)", fatal: false)
            return (.refused(failure, messageID: messageID), "failed")
        }
    }
}
