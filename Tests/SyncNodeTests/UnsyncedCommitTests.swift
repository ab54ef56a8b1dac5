import Foundation
import GRDB
@testable import SyncNode
import Testing

/// A companion's commits that need no sync of their own run at `synchronous = NORMAL`, and
/// every other commit stays at FULL: after them, and after one that failed.
struct UnsyncedCommitTests {
    let scratch = Scratch()

    @Test func onlyTheUnsyncedBodyRunsAtNormal() throws {
        let directory = scratch.url
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("state.sqlite").path, configuration: configuration)
        func level(_ db: Database) throws -> Int? { try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; CREATE TABLE t (x)")
            let inside = try db.unsynced {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return try level(db)
            }
            #expect(inside == 1)
            #expect(try level(db) == 2)
            #expect(throws: DatabaseError.self) {
                try db.unsynced { try db.execute(sql: "INSERT INTO missing VALUES (1)") }
            }
            #expect(try level(db) == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 1)
        }
    }
}
