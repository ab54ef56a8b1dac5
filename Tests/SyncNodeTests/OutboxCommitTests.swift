import Foundation
import GRDB
import Logging
@testable import SyncNode
import SyncProtocol
import Testing

/// A completion enters the outbox in memory before its row commits, so that the sender can
/// send it while the row is written (the two commits, the companion's and the primary's,
/// overlap); a row that cannot be written takes the entry out again.
struct OutboxCommitTests {
    let scratch = Scratch()

    func state() async throws -> (CompanionState, String) {
        let directory = scratch.path("outbox-\(UUID().uuidString)")
        return (try await CompanionState.open(directory: directory, logger: Logger(label: "test")), directory)
    }

    /// The rows in the outbox table, read by another connection.
    func rows(in directory: String) throws -> Int {
        try DatabaseQueue(path: directory + "/" + CompanionState.fileName).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM outbox") ?? -1 }
    }

    @Test func theSenderFindsTheCompletionBeforeItsRowCommits() async throws {
        let (state, directory) = try await state()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entry = OutboxEntry(CompletionMessage(wire: .with { $0.messageID = "m1" }), awaited: true)
        var seenAtWake: (oldest: String?, rows: Int)?
        let count = try await state.enqueue(entry) { seenAtWake = (state.oldest?.messageID, (try? rows(in: directory)) ?? -1) }
        #expect(seenAtWake?.oldest == "m1", "the sender is woken with the entry in the outbox")
        #expect(seenAtWake?.rows == 0, "before its row is written")
        #expect(count == 1)
        #expect(try rows(in: directory) == 1)
        #expect(await entry.hasRow())
        #expect(try await state.remove("m1") == 0)
        #expect(try rows(in: directory) == 0)
    }

    @Test func aRowThatCannotBeWrittenTakesTheEntryOut() async throws {
        let (state, directory) = try await state()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The disk refuses the row (as a full one would), after the sender was woken.
        try await DatabaseQueue(path: directory + "/" + CompanionState.fileName).write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let entry = OutboxEntry(CompletionMessage(wire: .with { $0.messageID = "m1" }), awaited: true)
        var woken = false
        await #expect(throws: DatabaseError.self) { try await state.enqueue(entry) { woken = true } }
        #expect(woken)
        #expect(state.depth == 0, "out of the outbox in memory")
        #expect(await !entry.hasRow(), "the sender then removes no row")
        #expect(try rows(in: directory) == 0)
    }
}
