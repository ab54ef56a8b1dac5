import CarePlanStore
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
        let first = try await CarePlanStore(path: path)
        let second = try await CarePlanStore(path: path)
        try await first.core.plan.addActivity(intervention("apple", times: (0..<24).map { String(format: "%02d:00", $0) }), effectiveFrom: monday, device: "a")
        let days = 20
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    var revisions: [Int] = []
                    for day in 0..<days {
                        for slot in 0..<12 {
                            let key = EventKey(activityID: "apple", day: monday.adding(days: day), occurrence: slot * 2 + index)
                            revisions.append(try await store.record(done("store-\(index)"), for: key))
                        }
                    }
                    return revisions
                }
            }
            var revisions: [Int] = []
            for try await batch in group {
                #expect(batch == batch.sorted())
                revisions += batch
            }
            #expect(Set(revisions).count == 2 * days * 12)
        }
        var total: [Int] = []
        for day in 0..<days { total.append(try await second.outcomes.events(on: monday.adding(days: day)).filter { $0.state == .completed }.count) }
        #expect(total == Array(repeating: 24, count: days))
    }

    @Test func aFileThatIsNotAStoreIsRefused() async throws {
        let path = scratch.path("not-a-store.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        await #expect(throws: CarePlanStoreError.notADatabase(path: path)) { try await CarePlanStore(path: path) }
    }

    @Test func aMissingDirectoryIsReported() async throws {
        let path = scratch.path("missing/dir/store.sqlite")
        let error = try await #require(throws: CarePlanStoreError.self) { try await CarePlanStore(path: path) }
        guard case .cannotOpen(let reported, _) = error else {
            Issue.record("expected cannotOpen, got \(error)")
            return
        }
        #expect(reported == path)
    }
}

/// Durability settings the store promises.
struct DurabilityTests {
    @Test func commitsAreSyncedToDisk() async throws {
        let scratch = Scratch()
        let store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        #expect(try await store.synchronousLevel() == 2)
    }
}
