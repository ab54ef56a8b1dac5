import Foundation
import GRDB

/// The store's schema: named migrations, applied in order and never edited once released.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 care plan") { db in
            try db.execute(sql: """
                CREATE TABLE plan_info (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                CREATE TABLE change (
                    revision INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    activity_id TEXT,
                    day INTEGER,
                    occurrence INTEGER,
                    version INTEGER,
                    effective_from INTEGER,
                    contact_id TEXT,
                    device TEXT NOT NULL,
                    committed_at REAL NOT NULL,
                    state TEXT,
                    recorded_at REAL,
                    outcome_values TEXT,
                    reason TEXT,
                    user_info TEXT
                );
                CREATE INDEX change_by_event ON change(activity_id, day, occurrence);
                CREATE TABLE activity (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    group_id TEXT,
                    origin TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    latest_version INTEGER NOT NULL,
                    ended_from INTEGER
                );
                CREATE INDEX activity_by_kind ON activity(kind, position);
                CREATE INDEX activity_by_group ON activity(group_id, position);
                CREATE TABLE activity_tag (
                    tag TEXT NOT NULL,
                    activity_id TEXT NOT NULL REFERENCES activity(id),
                    PRIMARY KEY (tag, activity_id)
                ) WITHOUT ROWID;
                CREATE TABLE activity_version (
                    activity_id TEXT NOT NULL REFERENCES activity(id),
                    version INTEGER NOT NULL,
                    effective_from INTEGER NOT NULL,
                    effective_until INTEGER,
                    definition TEXT NOT NULL,
                    revision INTEGER NOT NULL,
                    PRIMARY KEY (activity_id, version)
                ) WITHOUT ROWID;
                CREATE INDEX activity_version_by_window ON activity_version(effective_from, effective_until);
                CREATE TABLE outcome (
                    activity_id TEXT NOT NULL REFERENCES activity(id),
                    day INTEGER NOT NULL,
                    occurrence INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    revision INTEGER NOT NULL REFERENCES change(revision),
                    PRIMARY KEY (activity_id, day, occurrence)
                ) WITHOUT ROWID;
                CREATE INDEX outcome_by_day ON outcome(day, state);
                CREATE TABLE contact (
                    id TEXT PRIMARY KEY NOT NULL,
                    position INTEGER NOT NULL,
                    definition TEXT NOT NULL,
                    removed INTEGER NOT NULL DEFAULT 0,
                    revision INTEGER NOT NULL
                );
                """)
            try db.execute(
                sql: "INSERT INTO plan_info (key, value) VALUES ('planID', ?)",
                arguments: [UUID().uuidString.lowercased()])
        }
        migrator.registerMigration("v2 sync") { db in
            try db.execute(sql: """
                ALTER TABLE change ADD COLUMN clock_ms INTEGER;
                ALTER TABLE change ADD COLUMN clock_logical INTEGER;
                ALTER TABLE change ADD COLUMN message_id TEXT;
                CREATE TABLE sync_message (
                    message_id TEXT PRIMARY KEY NOT NULL,
                    revision INTEGER,
                    receipt TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v3 reminders") { db in
            try db.execute(sql: """
                CREATE TABLE reminder (
                    activity_id TEXT NOT NULL,
                    day INTEGER NOT NULL,
                    occurrence INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    due_at REAL NOT NULL,
                    status TEXT NOT NULL,
                    decided_at REAL,
                    PRIMARY KEY (activity_id, day, occurrence)
                ) WITHOUT ROWID;
                CREATE INDEX reminder_by_status ON reminder(status, due_at);
                """)
        }
        migrator.registerMigration("v4 devices") { db in
            try db.execute(sql: """
                ALTER TABLE change ADD COLUMN paired_device TEXT;
                CREATE TABLE device (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    role TEXT NOT NULL,
                    may_record INTEGER NOT NULL,
                    paired_at REAL NOT NULL,
                    last_seen REAL,
                    revoked_at REAL
                ) WITHOUT ROWID;
                CREATE TABLE pairing_code (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    code TEXT,
                    role TEXT NOT NULL,
                    may_record INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    failures INTEGER NOT NULL DEFAULT 0,
                    used_at REAL,
                    used_by TEXT,
                    locked_at REAL
                );
                """)
        }
        migrator.registerMigration("v5 activity sources") { db in
            try db.execute(sql: """
                CREATE TABLE activity_source (
                    activity_id TEXT PRIMARY KEY NOT NULL REFERENCES activity(id),
                    system TEXT NOT NULL,
                    reference TEXT NOT NULL,
                    subject TEXT,
                    payload BLOB NOT NULL,
                    updated_at REAL
                );
                CREATE INDEX activity_source_by_system ON activity_source(system, reference);
                """)
        }
        registerCursors(&migrator)
        migrator.registerMigration("v7 contact origins") { db in
            // Contacts a plan document brought are its to remove; those added one by one are not.
            try db.execute(sql: "ALTER TABLE contact ADD COLUMN origin TEXT NOT NULL DEFAULT 'plan'")
        }
        migrator.registerMigration("v8 report shares") { db in
            // A reportShared change names its recipient in contact_id or paired_device; a
            // report for a household device waits in report_delivery until the device has it.
            try db.execute(sql: """
                ALTER TABLE change ADD COLUMN shared_to TEXT;
                ALTER TABLE change ADD COLUMN range_from INTEGER;
                ALTER TABLE change ADD COLUMN range_through INTEGER;
                CREATE TABLE report_delivery (
                    revision INTEGER PRIMARY KEY NOT NULL REFERENCES change(revision),
                    device TEXT NOT NULL,
                    file_name TEXT NOT NULL,
                    media_type TEXT NOT NULL,
                    content BLOB NOT NULL,
                    delivered_at REAL
                );
                CREATE INDEX report_delivery_waiting ON report_delivery(device) WHERE delivered_at IS NULL;
                """)
        }
        migrator.registerMigration("v9 measurements") { db in
            // Not in the change log: a watch's heart rate at 1 Hz would drown it. The sequence
            // orders arrivals, for exports to resume from.
            try db.execute(sql: """
                CREATE TABLE measurement_source (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    manufacturer TEXT,
                    model TEXT,
                    software_version TEXT,
                    device TEXT NOT NULL,
                    updated_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE measurement (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    value REAL NOT NULL,
                    diastolic REAL,
                    unit TEXT NOT NULL,
                    start_at REAL NOT NULL,
                    end_at REAL NOT NULL,
                    source_id TEXT NOT NULL REFERENCES measurement_source(id),
                    device TEXT NOT NULL,
                    received_at REAL NOT NULL
                );
                CREATE INDEX measurement_by_time ON measurement(type, start_at);
                """)
        }
        migrator.registerMigration("v10 web sessions") { db in
            // A browser signed in with a one-time code (kept in pairing_code with a browser
            // role). The id is the SHA-256 of the cookie's secret: reading the file gives no
            // session away.
            try db.execute(sql: """
                CREATE TABLE web_session (
                    id TEXT PRIMARY KEY NOT NULL,
                    access TEXT NOT NULL,
                    name TEXT NOT NULL,
                    signed_in_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    last_seen REAL,
                    revoked_at REAL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v11 completion receipts as columns") { db in
            // A completion's answer in columns rather than JSON: judging a completion wrote
            // the JSON each time (a third of its CPU). The answers kept so far move across.
            try db.execute(sql: """
                CREATE TABLE completion_receipt (
                    message_id TEXT PRIMARY KEY NOT NULL,
                    accepted INTEGER NOT NULL,
                    revision INTEGER,
                    superseded INTEGER NOT NULL,
                    current_state TEXT NOT NULL,
                    rejection TEXT,
                    detail TEXT
                ) WITHOUT ROWID;
                INSERT INTO completion_receipt
                    SELECT message_id, json_extract(receipt, '$.status') = 'accepted', revision,
                           coalesce(json_extract(receipt, '$.superseded'), 0), json_extract(receipt, '$.currentState'),
                           json_extract(receipt, '$.rejection'), json_extract(receipt, '$.detail')
                    FROM sync_message;
                DROP TABLE sync_message;
                """)
        }
        migrator.registerMigration("v12 dose alerts") { db in
            // Missed doses and their all clears, in the order household devices receive them
            // (protocol section 22): a device names the last sequence it has seen.
            try db.execute(sql: """
                CREATE TABLE dose_alert (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    activity_id TEXT NOT NULL,
                    day INTEGER NOT NULL,
                    occurrence INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    due_at REAL NOT NULL,
                    raised_at REAL NOT NULL,
                    critical INTEGER NOT NULL,
                    outcome TEXT,
                    UNIQUE (activity_id, day, occurrence, kind)
                );
                CREATE INDEX dose_alert_by_time ON dose_alert(raised_at);
                """)
        }
        migrator.registerMigration("v13 held sources") { db in
            // Records an import took but holds for review, none of it scheduled: one row per
            // record, its review (what is held and why) as the importing system writes it.
            try db.execute(sql: """
                CREATE TABLE held_source (
                    system TEXT NOT NULL,
                    reference TEXT NOT NULL,
                    subject TEXT,
                    payload BLOB NOT NULL,
                    review BLOB NOT NULL,
                    held_at REAL NOT NULL,
                    PRIMARY KEY (system, reference)
                );
                """)
        }
        migrator.registerMigration("v14 standby devices") { db in
            // A household device paired with `--standby` keeps a copy of the store.
            try db.execute(sql: """
                ALTER TABLE pairing_code ADD COLUMN standby INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device ADD COLUMN standby INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v15 codes shown to their maker") { db in
            // A code made in the care app is shown again only to the session that made it,
            // by a handle nobody can guess (the row id is sequential).
            try db.execute(sql: """
                ALTER TABLE pairing_code ADD COLUMN handle TEXT;
                ALTER TABLE pairing_code ADD COLUMN shown_to TEXT;
                CREATE UNIQUE INDEX pairing_code_by_handle ON pairing_code(handle);
                """)
        }
        return migrator
    }

    /// Applies missing migrations; refuses a file written by a newer schema.
    static func migrate(_ writer: DatabasePool) throws {
        let migrator = migrator
        let unknown = try writer.read { db in
            try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
        }
        guard unknown.isEmpty else {
            throw CarePlanStoreError.schemaTooNew(path: writer.path, unknownMigrations: unknown.sorted())
        }
        try migrator.migrate(writer)
    }
}
