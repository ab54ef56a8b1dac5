import Foundation
import GRDB

/// Shared care reports and their deliveries, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordShares: RecordPart {
    let record: RecordTransaction
}

extension RecordShares {
    /// Keeps in the history that `share` was made (`device` made it).
    public func keep(_ share: ReportShare, device: String) throws -> StoreChange {
        try StoreChange(kind: .reportShared, share: share, device: device, committedAt: now).append(to: db)
    }

    /// Keeps the report `delivery` for `recipient` under the revision its share was kept at.
    public func keep(_ delivery: ReportDelivery, for recipient: String, revision: Int) throws {
        try db.run(
            "INSERT INTO report_delivery (revision, device, file_name, media_type, content) VALUES (?, ?, ?, ?, ?)",
            arguments: [revision, recipient, delivery.fileName, delivery.mediaType, Data(delivery.content)])
    }

    /// Whether the report of `revision` waits for `device`.
    public func reportWaits(revision: Int, for device: String) throws -> Bool {
        try db.value(
            Bool.self, "SELECT 1 FROM report_delivery WHERE revision = ? AND device = ? AND delivered_at IS NULL",
            arguments: [revision, device]) ?? false
    }

    /// Keeps that `device` has the report of `revision`, and lets its content go.
    public func keepDelivered(revision: Int, to device: String) throws {
        try db.run(
            "UPDATE report_delivery SET delivered_at = ?, content = x'' WHERE revision = ? AND device = ?",
            arguments: [now.timeIntervalSince1970, revision, device])
    }
}
