import Foundation
import GRDB

extension MeasurementStore {
    /// How far a named reader (an export to one server, say) has got: the revision of the
    /// change log it has processed (for a reader of measurements, the measurement sequence),
    /// `nil` if it has not started.
    public func cursor(_ name: String) async throws(CarePlanStoreError) -> Int? {
        try await read { db in try db.value(Int.self, "SELECT revision FROM cursor WHERE name = ?", arguments: [name]) }
    }

    /// Records that `name` has processed the change log (or the measurements) up to
    /// `revision`. A cursor never moves back, so a slower writer cannot undo a faster one's
    /// progress. Not itself a change.
    public func advanceCursor(_ name: String, to revision: Int) async throws(CarePlanStoreError) {
        try await write { db in
            try db.run("""
                    INSERT INTO cursor (name, revision, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET revision = MAX(revision, excluded.revision),
                        updated_at = excluded.updated_at
                    """,
                arguments: [name, revision, now().timeIntervalSince1970])
        }
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
