import CareBackup
import CarePlan
import Foundation
import SyncProtocol

/// Everything a companion node reports, in order.
public enum CompanionEvent: Sendable {
    /// Connected, and by which way.
    case connected(primaryID: String, primaryName: String, way: ConnectionWay)
    case disconnected(reason: String)
    /// No way reaches the primary, what that leaves unconfirmed, and its end.
    case away(AwayNotice)
    case context(ApplicationContext)
    case reply(messageID: String, key: EventKey, result: CompletionResult)
    case reminder(ReminderNotice)
    /// The primary's answer to a batch of measurements: they have left the outbox.
    case measurements(MeasurementBatchResult)
    /// A care report shared with this household device, kept whole at `path`.
    case report(ReceivedReport)
    /// Missed doses and all clears for this household device, newest first, each reported once.
    case alerts([DoseAlert])
    /// This household device's standby copy took a step: it is on disk.
    case standby(StandbyUpdate)
    /// How the primary's scheduled backups stand: on connecting, and whenever it changes.
    case backupStatus(BackupHealth.Status)
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

/// A step a household device's standby copy took (protocol section 23).
public struct StandbyUpdate: Sendable, Hashable {
    /// The change log's revision the copy is at now.
    public var revision: Int
    /// Pages the step brought.
    public var pages: Int
    /// The copy's size.
    public var bytes: Int
    /// When the oldest change the step brought was committed on the primary (`nil`: a first
    /// fill, or unknown).
    public var committedAt: Date?
    /// When the step was on disk.
    public var appliedAt: Date

    /// How far behind the primary the copy was: from that commit to this step on disk, on the
    /// two devices' clocks.
    public var lag: TimeInterval? { committedAt.map { max(0, appliedAt.timeIntervalSince($0)) } }
}
