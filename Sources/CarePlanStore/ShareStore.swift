import CarePlan
import Foundation
import GRDB

extension ShareStore {
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
}
