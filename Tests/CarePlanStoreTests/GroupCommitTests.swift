@testable import CarePlanStore
import Dispatch
import Synchronization
import Testing

/// Group commit on its own, with a commit the test controls, on a serial queue of its own
/// as the store's writer: who commits when, and who gets which result.
struct GroupCommitTests {
    /// Records every batch it is given; the first one waits for `gate` if there is one.
    final class Committer: Sendable {
        let batches = Mutex<[[Int]]>([])
        let gate: DispatchSemaphore?
        let failing: Set<Int>
        private let writer = DispatchQueue(label: "GroupCommitTests.writer")

        init(gate: DispatchSemaphore? = nil, failing: Set<Int> = []) {
            self.gate = gate
            self.failing = failing
        }

        /// Runs a step on the writer queue, handing it ``commit(_:)``.
        func schedule(_ step: @escaping @Sendable (GroupCommit<Int, String>.Commit) -> Void) {
            writer.async { step(self.commit) }
        }

        func commit(_ batch: [Int]) -> [Result<String, CarePlanStoreError>] {
            let first = batches.withLock { batches in
                batches.append(batch)
                return batches.count == 1
            }
            if first, let gate { gate.wait() }
            if batch.contains(where: failing.contains) { return batch.map { _ in .failure(.diskFull(path: "test")) } }
            return batch.map { .success("r\($0)") }
        }
    }

    @Test func aLoneRequestIsCommittedAtOnce() async throws {
        let group = GroupCommit<Int, String>()
        let committer = Committer()
        #expect(try await group.submit(7, schedule: committer.schedule) == "r7")
        #expect(try await group.submit(8, schedule: committer.schedule) == "r8")
        #expect(committer.batches.withLock { $0 } == [[7], [8]])
        #expect(group.waiting == 0)
    }

    @Test func requestsArrivingDuringACommitGoTogetherInTheNext() async throws {
        let group = GroupCommit<Int, String>()
        let gate = DispatchSemaphore(value: 0)
        let committer = Committer(gate: gate)
        let first = Task { try await group.submit(0, schedule: committer.schedule) }
        await until { committer.batches.withLock { $0.count } == 1 }
        let others = (1...5).map { n in Task { try await group.submit(n, schedule: committer.schedule) } }
        await until { group.waiting == 5 }
        gate.signal()
        #expect(try await first.value == "r0")
        for (n, task) in zip(1..., others) { #expect(try await task.value == "r\(n)") }
        let batches = committer.batches.withLock { $0 }
        #expect(batches.count == 2)
        #expect(batches.first == [0])
        #expect(batches.last?.sorted() == [1, 2, 3, 4, 5])
        #expect(group.waiting == 0)
    }

    @Test func aBatchIsBoundedAndTheRestFollows() async throws {
        let group = GroupCommit<Int, String>(maximumBatch: 2)
        let gate = DispatchSemaphore(value: 0)
        let committer = Committer(gate: gate)
        let first = Task { try await group.submit(0, schedule: committer.schedule) }
        await until { committer.batches.withLock { $0.count } == 1 }
        let others = (1...5).map { n in Task { try await group.submit(n, schedule: committer.schedule) } }
        await until { group.waiting == 5 }
        gate.signal()
        _ = try await first.value
        for task in others { _ = try await task.value }
        #expect(committer.batches.withLock { $0.map(\.count) } == [1, 2, 2, 1])
    }

    @Test func aFailedCommitFailsItsBatchAndTheNextGoesOn() async throws {
        let group = GroupCommit<Int, String>()
        let gate = DispatchSemaphore(value: 0)
        let committer = Committer(gate: gate, failing: [0])
        let first = Task { try await group.submit(0, schedule: committer.schedule) }
        await until { committer.batches.withLock { $0.count } == 1 }
        let second = Task { try await group.submit(1, schedule: committer.schedule) }
        await until { group.waiting == 1 }
        gate.signal()
        await #expect(throws: CarePlanStoreError.diskFull(path: "test")) { try await first.value }
        #expect(try await second.value == "r1")
    }

    /// The next batch is a step of its own on the writer queue: a write queued there during
    /// a commit runs before it, so a stream of completions never holds the writer.
    @Test func otherWritesGoBetweenBatches() async throws {
        let group = GroupCommit<Int, String>()
        let gate = DispatchSemaphore(value: 0)
        let committer = Committer(gate: gate)
        let first = Task { try await group.submit(0, schedule: committer.schedule) }
        await until { committer.batches.withLock { $0.count } == 1 }
        let second = Task { try await group.submit(1, schedule: committer.schedule) }
        await until { group.waiting == 1 }
        let batchesSeenByOtherWrite = Mutex<Int?>(nil)
        committer.schedule { _ in batchesSeenByOtherWrite.withLock { $0 = committer.batches.withLock { $0.count } } }
        gate.signal()
        _ = try await first.value
        _ = try await second.value
        #expect(batchesSeenByOtherWrite.withLock { $0 } == 1)
        #expect(committer.batches.withLock { $0 } == [[0], [1]])
    }

    /// Yields until `condition` holds (another task of this process makes it true), for at
    /// most the suite's `patience`.
    func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now + patience
        while !condition(), ContinuousClock.now < deadline { await Task.yield() }
        #expect(condition(), "still false after \(patience)", sourceLocation: sourceLocation)
    }
}
