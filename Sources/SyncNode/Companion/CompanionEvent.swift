import CarePlan
import SyncProtocol

/// Everything a companion node reports, in order.
public enum CompanionEvent: Sendable {
    case connected(primaryID: String, primaryName: String)
    case disconnected(reason: String)
    case context(ApplicationContext)
    case reply(messageID: String, key: EventKey, result: CompletionResult)
    case reminder(ReminderNotice)
    /// The primary's answer to a batch of measurements: they have left the outbox.
    case measurements(MeasurementBatchResult)
    /// A care report shared with this household device, kept whole at `path`.
    case report(ReceivedReport)
    /// Missed doses and all clears for this household device, newest first, each reported once.
    case alerts([DoseAlert])
    /// An Error message from the primary, or a local failure worth showing.
    case error(code: String, message: String)
}

/// A care report a household device received and kept.
public struct ReceivedReport: Sendable, Hashable {
    /// The revision of the primary's `reportShared` change.
    public var revision: Int
    /// Where it was saved.
    public var path: String
    public var mediaType: String
    public var days: ClosedRange<CalendarDay>
    public var bytes: Int
    /// SHA-256 of the file, lowercase hex.
    public var sha256: String
}
