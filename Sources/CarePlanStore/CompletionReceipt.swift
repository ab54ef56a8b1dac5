import CarePlan
import GRDB

/// The store's answer to a completion from another node, kept under its message id so
/// that a repeated message gets the same answer and changes nothing.
public struct CompletionReceipt: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case accepted
        case rejected
    }

    public var messageID: String
    public var status: Status
    /// The revision that recorded it (accepted).
    public var revision: Int?
    /// Recorded in the history, but a later change to the same event stands.
    public var superseded: Bool
    /// The event's state once the completion was judged; `nil` when it was refused before
    /// the record was consulted (a device that may not record).
    public var currentState: EventState?
    public var rejection: Rejection?
    /// What a person reads about a rejection.
    public var detail: String?
    /// True when this message id had been answered before: nothing changed this time.
    public var isRepeat: Bool

    public init(
        messageID: String, status: Status, revision: Int? = nil, superseded: Bool = false,
        currentState: EventState?, rejection: Rejection? = nil, detail: String? = nil, isRepeat: Bool = false
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

extension CompletionReceipt {
    /// The answer kept for `messageID`, marked as a repeat; `nil` if it was never answered.
    static func fetch(_ messageID: String, in db: Database) throws -> CompletionReceipt? {
        try db.direct(
            "SELECT accepted, revision, superseded, current_state, rejection, detail FROM completion_receipt WHERE message_id = ?"
        ) { row in
            row.bind(messageID)
            guard try row.step() else { return nil }
            let stateName = try row.text(required: 3)
            let rejectionName = row.text(4)
            guard let state = EventState(rawValue: stateName), rejectionName.map({ Rejection(rawValue: $0) != nil }) ?? true else {
                throw CarePlanStoreError.database("an unreadable answer to message \(messageID) (\(stateName), \(rejectionName ?? "-"))")
            }
            return CompletionReceipt(
                messageID: messageID, status: try row.int(required: 0) != 0 ? .accepted : .rejected, revision: row.int(1),
                superseded: try row.int(required: 2) != 0, currentState: state,
                rejection: rejectionName.flatMap(Rejection.init(rawValue:)), detail: row.text(5), isRepeat: true)
        }
    }

    /// Keeps the answer, so that a repeated message gets it again.
    func insert(into db: Database) throws {
        try db.direct(
            """
            INSERT INTO completion_receipt (message_id, accepted, revision, superseded, current_state, rejection, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        ) { statement in
            statement.bind(messageID)
            statement.bind(status == .accepted)
            statement.bind(revision)
            statement.bind(superseded)
            // The store judges every receipt it keeps, so each names a state.
            statement.bind((currentState ?? .initial).rawValue)
            statement.bind(rejection?.rawValue)
            statement.bind(detail)
            try statement.execute()
        }
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
        case .futureDay: self = .futureDay
        default: return nil
        }
    }
}
