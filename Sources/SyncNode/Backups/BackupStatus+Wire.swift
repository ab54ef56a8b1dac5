import CareBackup
import Foundation
import SyncProtocol

extension BackupHealth.Status {
    var wire: Caresync_V1_BackupStatus {
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
    init(wire: Caresync_V1_BackupStatus) {
        let lastMade = wire.lastMadeMs == 0 ? nil : Self.date(wire.lastMadeMs)
        guard wire.failingSinceMs != 0 else {
            self = .working(lastMade: lastMade)
            return
        }
        self = .failing(BackupHealth.Trouble(
            since: Self.date(wire.failingSinceMs), reason: wire.failure, cause: .other, retryAt: Self.date(wire.retryAtMs), lastMade: lastMade))
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    private static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

extension Caresync_V1_Envelope {
    static func backupStatus(_ status: BackupHealth.Status) -> Self { .with { $0.backupStatus = status.wire } }
}
