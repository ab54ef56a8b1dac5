import Foundation
import GRDB
import GRDBSQLite

/// What a store holds, in figures: what a backup's manifest shows, and what a restore checks
/// the restored copy against.
public struct StoreSummary: Codable, Sendable, Hashable {
    public var planID: String
    public var title: String?
    /// The newest revision of the change log.
    public var revision: Int
    public var activities: Int
    public var outcomes: Int
    public var measurements: Int
    /// Paired devices, revoked ones included.
    public var devices: Int
}

extension CarePlanStore {
    /// Writes a consistent copy of the store to the new file `path`: SQLite's `VACUUM INTO` on
    /// a reader, one snapshot of the whole database, compacted, while other connections and
    /// processes go on reading and writing (a file copy of a live WAL database would not be
    /// one state). `path` must not exist.
    public func copy(to path: String) async throws(CarePlanStoreError) {
        do {
            try await pool.unsafeRead { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// The plan's id and title, the revision, and how many activities, outcomes,
    /// measurements and paired devices the store holds, read in one transaction.
    public func summary() async throws(CarePlanStoreError) -> StoreSummary {
        try await read { db in
            let count = { (table: String) in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
            let info = try PlanStore.planInfo(db)
            return StoreSummary(
                planID: info.planID, title: info.title, revision: try Self.revision(db), activities: try count("activity"),
                outcomes: try count("outcome"), measurements: try count("measurement"), devices: try count("device"))
        }
    }

    /// The store's database as one consistent snapshot, page for page (SQLite's online backup
    /// into memory, serialized), with the change log's revision in it and its page size. Unlike
    /// ``copy(to:)``, which compacts, a page keeps its number from one image to the next: two
    /// images differ in the pages the commits between them wrote, which is what a standby copy
    /// is sent.
    public func pageImage() async throws(CarePlanStoreError) -> (revision: Int, pageSize: Int, bytes: [UInt8]) {
        do {
            return try await pool.read { source in
                let pageSize = try Int.fetchOne(source, sql: "PRAGMA page_size") ?? 4096
                let memory = try DatabaseQueue()
                return try memory.writeWithoutTransaction { image in
                    // An in-memory copy of a WAL database must have its page size.
                    try image.execute(sql: "PRAGMA page_size = \(pageSize)")
                    try source.backup(to: image)
                    let revision = try Self.revision(image)
                    var size: sqlite3_int64 = 0
                    guard let bytes = sqlite3_serialize(image.sqliteConnection, "main", &size, 0) else {
                        throw CarePlanStoreError.database("SQLite could not serialize the store's image")
                    }
                    defer { sqlite3_free(bytes) }
                    return (revision, pageSize, Array(UnsafeBufferPointer(start: bytes, count: Int(size))))
                }
            }
        } catch {
            throw CarePlanStoreError(error, path: pool.path)
        }
    }

    /// Whether SQLite finds the database file whole (`PRAGMA integrity_check`); what it
    /// found wrong otherwise.
    public func integrityProblems() async throws(CarePlanStoreError) -> [String] {
        try await read { db in
            let found = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return found == ["ok"] ? [] : found
        }
    }
}
