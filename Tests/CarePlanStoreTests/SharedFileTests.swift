import CarePlan
@testable import CarePlanStore
import Foundation
import Testing

/// Two independent store instances on one file behave as two processes do: separate
/// SQLite connections, locks and WAL readers.
struct SharedFileTests {
    let scratch = Scratch()

    @Test func concurrentWritersGetDistinctRevisionsAndLoseNothing() async throws {
        let path = scratch.path("shared.sqlite")
        let first = try CarePlanStore(path: path)
        let second = try CarePlanStore(path: path)
        try first.addActivity(intervention("apple", times: (0..<24).map { String(format: "%02d:00", $0) }), effectiveFrom: monday, device: "a")
        let days = 20
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    try (0..<days).flatMap { day in
                        try (0..<12).map { slot in
                            let key = EventKey(activityID: "apple", day: monday.adding(days: day), occurrence: slot * 2 + index)
                            return try store.setOutcome(done("store-\(index)"), for: key).revision
                        }
                    }
                }
            }
            var revisions: [Int] = []
            for try await batch in group {
                #expect(batch == batch.sorted())
                revisions += batch
            }
            #expect(Set(revisions).count == 2 * days * 12)
        }
        let total = try (0..<days).map { try second.events(on: monday.adding(days: $0)).filter { $0.state == .completed }.count }
        #expect(total == Array(repeating: 24, count: days))
    }

    @Test func anObserverSeesTheOtherInstancesCommits() async throws {
        let path = scratch.path("observed.sqlite")
        let writer = try CarePlanStore(path: path)
        let observer = try CarePlanStore(path: path)
        try writer.addActivity(intervention("apple"), effectiveFrom: monday, device: "writer")
        let start = try observer.revision()
        let changes = observer.changes(after: start, pollInterval: .milliseconds(10))
        try writer.setOutcome(done("writer"), for: EventKey(activityID: "apple", day: monday, occurrence: 1))
        for try await change in changes {
            #expect(change.revision == start + 1)
            #expect(change.event == EventKey(activityID: "apple", day: monday, occurrence: 1))
            #expect(change.device == "writer")
            break
        }
    }

    @Test func aFileThatIsNotAStoreIsRefused() throws {
        let path = scratch.path("not-a-store.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: CarePlanStoreError.notADatabase(path: path)) { try CarePlanStore(path: path) }
    }

    @Test func aMissingDirectoryIsReported() throws {
        let path = scratch.path("missing/dir/store.sqlite")
        let error = try #require(throws: CarePlanStoreError.self) { try CarePlanStore(path: path) }
        guard case .cannotOpen(let reported, _) = error else {
            Issue.record("expected cannotOpen, got \(error)")
            return
        }
        #expect(reported == path)
    }
}

/// Durability settings the store promises.
struct DurabilityTests {
    @Test func commitsAreSyncedToDisk() throws {
        let scratch = Scratch()
        let store = try CarePlanStore(path: scratch.path("store.sqlite"))
        #expect(try store.synchronousLevel() == 2)
    }
}
