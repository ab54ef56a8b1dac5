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
