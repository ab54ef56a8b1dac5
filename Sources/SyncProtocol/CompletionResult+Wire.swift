import CarePlan

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

/// The primary's reply to a completion, as a companion reads it: the completion it answers,
/// and what became of it.
public struct CompletionReply: Sendable {
    public var messageID: String
    public var result: CompletionResult

    public init(wire: Caresync_V1_CompletionReply) {
        messageID = wire.messageID
        result = CompletionResult(reply: wire)
    }
}
