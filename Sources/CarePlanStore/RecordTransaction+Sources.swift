import Foundation
import GRDB

/// Where sourced activities came from, and the records held for review, as one
/// ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordSources: RecordPart {
    let record: RecordTransaction
}

extension RecordSources {
    /// Keeps (or replaces) `source` as where the kept activity `activityID` came from, saved now.
    @discardableResult
    public func keep(_ source: ActivitySource, for activityID: String) throws -> ActivitySource {
        var stored = source
        stored.activityID = activityID
        stored.updatedAt = now
        try db.run("""
                INSERT INTO activity_source (activity_id, system, reference, subject, payload, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (activity_id) DO UPDATE SET system = excluded.system, reference = excluded.reference,
                    subject = excluded.subject, payload = excluded.payload, updated_at = excluded.updated_at
                """,
            arguments: [activityID, source.system, source.reference, source.subject, source.payload,
                        now.timeIntervalSince1970])
        return stored
    }

    /// The hold of the record `reference` from `system`, if it is held.
    public func hold(of reference: String, system: String) throws -> HeldSource? {
        try db.row("SELECT subject, payload, review, held_at FROM held_source WHERE system = ? AND reference = ?",
                   arguments: [system, reference]).map { row in
            var held = HeldSource(system: system, reference: reference, subject: row[0], payload: row[1], review: row[2])
            held.heldAt = Date(timeIntervalSince1970: row[3])
            return held
        }
    }

    /// Keeps `hold`, held since `heldAt` (replacing the record's earlier hold).
    public func keep(_ hold: HeldSource, heldAt: Date) throws {
        try db.run("""
                INSERT INTO held_source (system, reference, subject, payload, review, held_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (system, reference) DO UPDATE SET subject = excluded.subject, payload = excluded.payload,
                    review = excluded.review, held_at = excluded.held_at
                """,
            arguments: [hold.system, hold.reference, hold.subject, hold.payload, hold.review, heldAt.timeIntervalSince1970])
    }

    /// Holds the record `reference` from `system` no longer.
    public func release(_ reference: String, system: String) throws {
        try db.run("DELETE FROM held_source WHERE system = ? AND reference = ?", arguments: [system, reference])
    }
}
