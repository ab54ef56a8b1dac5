import Foundation
import GRDB
import PrivateFiles
import SyncProtocol

/// What a companion keeps between runs, in one SQLite file in its state directory: the
/// primary it paired with, the last application context, and the outbox of completions
/// not yet answered. (Its identity is beside it, in its own files.)
final class CompanionState: Sendable {
    private let queue: DatabaseQueue

    init(directory: String) throws {
        // The state directory and its database are the owner's alone (0700, 0600).
        try PrivateFiles.makeDirectory(directory, own: true)
        try PrivateFiles.prepareDatabase(directory + "/companion.sqlite")
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // WAL: one sync per commit instead of a rollback journal's four; FULL: a queued
        // completion survives a power cut.
        configuration.journalMode = .wal
        queue = try DatabaseQueue(path: directory + "/companion.sqlite", configuration: configuration)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 companion") { db in
            try db.execute(sql: """
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                CREATE TABLE outbox (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    message_id TEXT NOT NULL UNIQUE,
                    completion BLOB NOT NULL
                );
                """)
        }
        try migrator.migrate(queue)
    }

    /// The fingerprint of the primary this companion paired with.
    func primaryID() throws -> String? {
        try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'primaryID'") }
    }

    func remember(primaryID: String) async throws {
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES ('primaryID', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [primaryID])
        }
    }

    /// The last context received, if any.
    func cachedContext() throws -> ApplicationContext? {
        guard let bytes = try queue.read({ db in
            try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'context'")
        }) else { return nil }
        return try ApplicationContext(wire: Caresync_V1_Envelope(serializedBytes: bytes).applicationContext)
    }

    /// Keeps the frame payload of the newest context as it arrived, without re-encoding it.
    func cache(contextFrame payload: [UInt8]) async throws {
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES ('context', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [Data(payload)])
        }
    }

    /// Appends a completion; it stays until the primary has answered it. Returns how many
    /// are in the outbox now.
    @discardableResult
    func enqueue(_ completion: Caresync_V1_Completion) async throws -> Int {
        let bytes: Data = try completion.serializedBytes()
        return try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO outbox (message_id, completion) VALUES (?, ?)", arguments: [completion.messageID, bytes])
            return try Self.depth(db)
        }
    }

    /// How many completions the outbox holds.
    func depth() throws -> Int {
        try queue.read(Self.depth)
    }

    private static func depth(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0
    }

    /// The oldest unanswered completion.
    func oldest() async throws -> Caresync_V1_Completion? {
        try await queue.read { db in
            try Data.fetchOne(db, sql: "SELECT completion FROM outbox ORDER BY sequence LIMIT 1")
        }.map { try Caresync_V1_Completion(serializedBytes: $0) }
    }

    /// Every unanswered completion, oldest first.
    func pending() throws -> [Caresync_V1_Completion] {
        try queue.read { db in
            try Data.fetchAll(db, sql: "SELECT completion FROM outbox ORDER BY sequence")
        }.map { try Caresync_V1_Completion(serializedBytes: $0) }
    }

    /// Removes an answered completion; returns how many are left.
    @discardableResult
    func remove(_ messageID: String) async throws -> Int {
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE message_id = ?", arguments: [messageID])
            return try Self.depth(db)
        }
    }
}
