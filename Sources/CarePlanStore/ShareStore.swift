import CarePlan
import Foundation
import GRDB

extension ShareStore {
    /// Records that the report was sent by email: the history keeps to whom and which days.
    @discardableResult
    @_spi(CareCore) public func record(_ share: ReportShare, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in try StoreChange(kind: .reportShared, share: share, device: device, committedAt: now()).append(to: db) }
    }

    /// Keeps a report for a paired household device until it says it has it, and records the
    /// share in the same transaction. A running primary sends it at once if the device is
    /// connected, else when it next connects.
    ///
    /// - Throws: ``CarePlanStoreError/unknownDevice(_:)``, or
    ///   ``CarePlanStoreError/cannotReceiveReports(_:reason:)`` for a device that is not a
    ///   household device or was revoked.
    @discardableResult
    @_spi(CareCore) public func share(_ delivery: ReportDelivery, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in
            guard let row = try db.row("SELECT * FROM device WHERE id = ?", arguments: [delivery.device]) else {
                throw CarePlanStoreError.unknownDevice(delivery.device)
            }
            let recipient = try PairedDevice(row: row)
            guard recipient.role == .household else {
                throw CarePlanStoreError.cannotReceiveReports(recipient.name, reason: "it is paired as a \(recipient.role.rawValue)")
            }
            guard !recipient.isRevoked else { throw CarePlanStoreError.cannotReceiveReports(recipient.name, reason: "it was revoked") }
            let share = ReportShare(recipient: .device(recipient.id), address: recipient.name, days: delivery.days)
            let change = try StoreChange(kind: .reportShared, share: share, device: device, committedAt: now()).append(to: db)
            try db.run(
                "INSERT INTO report_delivery (revision, device, file_name, media_type, content) VALUES (?, ?, ?, ?, ?)",
                arguments: [change.revision, recipient.id, delivery.fileName, delivery.mediaType, Data(delivery.content)])
            return change
        }
    }

    /// The reports waiting for `device`, oldest first.
    public func pending(for device: String) async throws(CarePlanStoreError) -> [ReportDelivery] {
        try await read { db in
            try db.rows("""
                SELECT d.revision, d.device, d.file_name, d.media_type, d.content, c.range_from, c.range_through
                FROM report_delivery d JOIN change c ON c.revision = d.revision
                WHERE d.device = ? AND d.delivered_at IS NULL ORDER BY d.revision
                """, arguments: [device]
            ).map { row in
                let (from, through) = (CalendarDay(daysSinceEpoch: row[5]), CalendarDay(daysSinceEpoch: row[6]))
                guard from <= through else { throw CarePlanStoreError.database("report \(row[0] as Int) ends before it begins") }
                return ReportDelivery(
                    revision: row[0], device: row[1], fileName: row[2], mediaType: row[3], content: [UInt8](row[4] as Data),
                    days: from...through)
            }
        }
    }

    /// Notes that `device` has the report of `revision`, and lets its content go. Returns
    /// whether it was waiting (a repeated acknowledgement, or another device's, is not).
    @discardableResult
    @_spi(CareCore) public func delivered(revision: Int, to device: String) async throws(CarePlanStoreError) -> Bool {
        try await write { db in
            try db.run(
                "UPDATE report_delivery SET delivered_at = ?, content = x'' WHERE revision = ? AND device = ? AND delivered_at IS NULL",
                arguments: [now().timeIntervalSince1970, revision, device])
            return db.changesCount > 0
        }
    }
}
