import CarePlan

/// What became of a completion, as the companion that sent it learns.
public enum CompletionResult: Sendable, Hashable {
    /// Committed at the primary. `superseded`: kept in the history, but a later change to
    /// the event stands, whose state is `state`.
    case accepted(revision: Int, superseded: Bool, state: EventState)
    /// Judged and refused for good; it has left the outbox.
    case rejected(Rejection, detail: String)
    /// The primary refused the message itself (an Error such as `MALFORMED_FRAME`, by its
    /// catalogue name); it has left the outbox.
    case refused(code: String, detail: String)
    /// In the outbox: it will be delivered, in order and once, when the primary is reachable.
    case queued
}

extension CompletionResult {
    /// The primary's judgement in a CompletionReply. A reason this version does not know is
    /// still a rejection; it reads as its number.
    public init(reply: Caresync_V1_CompletionReply) {
        switch reply.status {
        case .accepted:
            self = .accepted(
                revision: Int(clamping: reply.revision), superseded: reply.superseded,
                state: (try? EventState(wire: reply.currentState)) ?? .initial)
        default:
            self = Rejection(wire: reply.reason).map { .rejected($0, detail: reply.detail) }
                ?? .refused(code: "\(reply.reason)", detail: reply.detail)
        }
    }
}
