import CarePlan
import SyncProtocol

/// Everything a companion node reports, in order.
public enum CompanionEvent: Sendable {
    case connected(primaryID: String, primaryName: String)
    case disconnected(reason: String)
    case context(ApplicationContext)
    case reply(messageID: String, key: EventKey, result: CompletionResult)
    case reminder(ReminderNotice)
    /// An Error message from the primary, or a local failure worth showing.
    case error(code: String, message: String)
}
