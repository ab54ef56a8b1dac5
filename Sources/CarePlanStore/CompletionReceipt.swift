import CarePlan

/// The store's answer to a completion from another node, kept under its message id so
/// that a repeated message gets the same answer and changes nothing.
public struct CompletionReceipt: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        case accepted
        case rejected
    }

    public var messageID: String
    public var status: Status
    /// The revision that recorded it (accepted).
    public var revision: Int?
    /// Recorded in the history, but a later change to the same event stands.
    public var superseded: Bool
    /// The event's state once the completion was judged.
    public var currentState: EventState
    public var rejection: Rejection?
    /// What a person reads about a rejection.
    public var detail: String?
    /// True when this message id had been answered before: nothing changed this time.
    public var isRepeat: Bool

    public init(
        messageID: String, status: Status, revision: Int? = nil, superseded: Bool = false,
        currentState: EventState, rejection: Rejection? = nil, detail: String? = nil, isRepeat: Bool = false
    ) {
        self.messageID = messageID
        self.status = status
        self.revision = revision
        self.superseded = superseded
        self.currentState = currentState
        self.rejection = rejection
        self.detail = detail
        self.isRepeat = isRepeat
    }
}

extension Rejection {
    /// The rejection a store refusal amounts to, or `nil` for failures that are not the
    /// completion's fault (a full disk, a busy file) and deserve a retry.
    public init?(_ error: CarePlanStoreError) {
        switch error {
        case .unknownActivity: self = .unknownActivity
        case .noSuchOccurrence: self = .noSuchOccurrence
        case .outsideSchedule: self = .outsidePlanVersion
        case .invalidResult, .notResettable: self = .invalidResult
        default: return nil
        }
    }
}
