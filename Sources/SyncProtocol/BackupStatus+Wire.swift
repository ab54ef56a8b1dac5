import CarePlan
import Foundation

/// How backups stand, as the BackupStatus message says it (protocol section 24). The status
/// is a plain value of module CarePlan (module CareBackup's `BackupHealth` keeps it, as
/// `BackupHealth.Status`): CareBackup depends on the store, and this module must not.
extension BackupStatus {
    /// The status as the message carries it: the cause of a failure stays on the primary.
    public var wire: Caresync_V1_BackupStatus {
        .with {
            switch self {
            case .working(let lastMade):
                $0.lastMadeMs = lastMade.map(Self.milliseconds) ?? 0
            case .failing(let trouble):
                $0.lastMadeMs = trouble.lastMade.map(Self.milliseconds) ?? 0
                $0.failingSinceMs = Self.milliseconds(trouble.since)
                $0.failure = trouble.reason
                $0.retryAtMs = Self.milliseconds(trouble.retryAt)
            }
        }
    }

    /// The status a BackupStatus message gives (protocol section 24): its reason in the
    /// primary's words, which the message does not classify.
    public init(wire: Caresync_V1_BackupStatus) {
        let lastMade = wire.lastMadeMs == 0 ? nil : Self.date(wire.lastMadeMs)
        guard wire.failingSinceMs != 0 else {
            self = .working(lastMade: lastMade)
            return
        }
        self = .failing(BackupTrouble(
            since: Self.date(wire.failingSinceMs), reason: wire.failure, cause: .other, retryAt: Self.date(wire.retryAtMs), lastMade: lastMade))
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    private static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

extension Caresync_V1_Envelope {
    /// How the primary's backups stand, for a household device that asked (`backup-status`).
    public static func backupStatus(_ status: BackupStatus) -> Self { .with { $0.backupStatus = status.wire } }
}
