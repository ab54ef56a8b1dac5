import CarePlan

/// A primary's answer to a completion (protocol sections 7 and 11), before it goes on the wire: the
/// store's judgement (a CompletionReply), or a refusal of the message itself (a non-fatal
/// Error), each naming the completion it answers.
public enum CompletionJudgement: Sendable {
    /// Judged by the store: the revision that recorded it, or the rejection and what a person
    /// reads about it; the event's state either way.
    case judged(messageID: String, revision: Int?, superseded: Bool, state: EventState?, rejection: Rejection?, detail: String?)
    /// Not judged: the message cannot be read, or the store could not record it now.
    case refused(ProtocolError, messageID: String)
}

extension Caresync_V1_Envelope {
    /// The answer as the companion receives it: a CompletionReply, or an Error in reply to
    /// the completion.
    public static func judgement(_ judgement: CompletionJudgement) -> Self {
        switch judgement {
        case .judged(let messageID, let revision, let superseded, let state, let rejection, let detail):
            .completionReply(to: messageID, revision: revision, superseded: superseded, state: state, rejection: rejection, detail: detail)
        case .refused(let error, let messageID):
            error.envelope(inReplyTo: messageID)
        }
    }
}
