import Foundation
import GRDB

extension MeasurementStore {
    /// How far a named reader (an export to one server, say) has got: the revision of the
    /// change log it has processed (for a reader of measurements, the measurement sequence),
    /// `nil` if it has not started.
    public func cursor(_ name: String) async throws(CarePlanStoreError) -> Int? {
        try await read { db in try db.value(Int.self, "SELECT revision FROM cursor WHERE name = ?", arguments: [name]) }
    }
}

/// Readers' cursors, one of the record's measurement parts.
extension RecordMeasurements {
    /// How far the reader `name` has got, `nil` if it has not started.
    public func cursor(_ name: String) throws -> Int? {
        try db.value(Int.self, "SELECT revision FROM cursor WHERE name = ?", arguments: [name])
    }

    /// Keeps `revision` as how far the reader `name` has got.
    public func keepCursor(_ name: String, at revision: Int) throws {
        try db.run("""
                INSERT INTO cursor (name, revision, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at
                """,
            arguments: [name, revision, now.timeIntervalSince1970])
    }
}

extension Schema {
    /// Named cursors into the change log, for readers such as FHIR exports.
    static func registerCursors(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6 export cursors") { db in
            try db.execute(sql: """
                CREATE TABLE cursor (
                    name TEXT PRIMARY KEY NOT NULL,
                    revision INTEGER NOT NULL,
                    updated_at REAL NOT NULL
                ) WITHOUT ROWID;
                """)
        }
    }
}
