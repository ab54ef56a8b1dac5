import CareCore
import CarePlan
@_spi(CareCore) @testable import CarePlanStore
import Foundation
import Logging
import Synchronization
import Testing
import Waiting

/// The one change feed of a process: its own commits at once, other processes' when the files are written,
/// each subscriber from its own revision, in order, each change once.
struct StoreChangeFeedTests {
    let scratch = Scratch()
    let store: CarePlanStore

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        try await store.core.plan.addActivity(intervention("apple", times: (0..<24).map { String(format: "%02d:00", $0) }), effectiveFrom: monday, device: "t")
    }

    /// Runs `feed` while `body` runs, then stops it.
    func following<T>(_ feed: StoreChangeFeed, _ body: () async throws -> T) async throws -> T {
        let running = Task { try await feed.run() }
        defer { running.cancel() }
        return try await body()
    }

    /// The first `count` changes of `stream`, or fewer if `limit` passes first.
    func first(_ count: Int, of stream: AsyncStream<StoreChange>, within limit: Duration = patience) async -> [StoreChange] {
        await withTimeout(limit) {
            var changes: [StoreChange] = []
            for await change in stream {
                changes.append(change)
                if changes.count == count { break }
            }
            return changes
        } ?? []
    }

    func key(_ occurrence: Int, day: Int = 0) -> EventKey {
        EventKey(activityID: "apple", day: monday.adding(days: day), occurrence: occurrence)
    }

    @Test func thisProcesssCommitsArriveWithoutWaitingForAPoll() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        let start = try await store.revision()
        let changes = try await following(feed) {
            let stream = feed.changes(after: start)
            try await store.record(done(), for: key(0))
            _ = try await store.complete(done("watch"), for: key(1), messageID: "m")
            return await first(2, of: stream)
        }
        #expect(changes.map(\.revision) == [start + 1, start + 2])
        #expect(changes.map(\.event) == [key(0), key(1)])
    }

    /// What `feed` hands on of a commit another process makes.
    func anotherProcesssCommit(through feed: StoreChangeFeed) async throws -> [StoreChange] {
        let other = try await CarePlanStore(path: store.path)
        let start = try await store.revision()
        let changes = try await following(feed) {
            let stream = feed.changes(after: start)
            try await other.record(done("other"), for: key(3))
            return await first(1, of: stream)
        }
        #expect(changes.map(\.revision) == [start + 1])
        return changes
    }

    /// Another process's commit is noticed by the store's files being written, not by a poll:
    /// the safety net is an hour away.
    @Test func anotherProcesssCommitsArriveWithoutPolling() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        #expect(try await anotherProcesssCommit(through: feed).first?.device == "other")
    }

    /// Without the files watched, the safety net's reads still find another process's commit.
    @Test func theSafetyNetFindsWhatNothingTold() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .milliseconds(10), watchesFiles: false, logger: Logger(label: "test"))
        #expect(try await anotherProcesssCommit(through: feed).first?.device == "other")
    }

    @Test func eachSubscriberStartsAfterItsOwnRevisionAndSeesEachChangeOnce() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .milliseconds(10), logger: Logger(label: "test"))
        let start = try await store.revision()
        for occurrence in 0..<3 { try await store.record(done(), for: key(occurrence)) }
        let (everything, later, fromNow) = try await following(feed) {
            let everything = feed.changes(after: 0)
            let later = feed.changes(after: start + 2)
            let fromNow = feed.changes()
            // The feed has read once when the catch-up has arrived: only then is "now" fixed.
            let caughtUp = await first(start + 3, of: everything)
            try await store.record(done(), for: key(3))
            return (caughtUp + (await first(1, of: everything)), await first(2, of: later), await first(1, of: fromNow))
        }
        #expect(everything.map(\.revision) == Array(1...(start + 4)))
        #expect(later.map(\.revision) == [start + 3, start + 4])
        #expect(fromNow.map(\.revision) == [start + 4])
    }

    @Test func oneCommitsChangesArriveAsOneBatchAndAsSingleChanges() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        let start = try await store.revision()
        let (batch, single) = try await following(feed) {
            let batches = feed.batches(after: start), changes = feed.changes(after: start)
            try await store.keepTogether((0..<5).map { (key($0), done()) })
            let batch = await withTimeout(patience) { await batches.first { _ in true } }
            return (batch, await first(5, of: changes))
        }
        #expect(batch?.map(\.revision) == Array((start + 1)...(start + 5)))
        #expect(single.map(\.revision) == batch?.map(\.revision))
    }

    /// A group commit hands the feed its changes itself once its answers are on their way:
    /// no answer waits for the feed (here nothing else writes, so the feed has no read of
    /// its own to make after its first).
    @Test func aGroupCommitsChangesArriveAfterItsAnswers() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        let (store, start, keys) = (store, try await store.revision(), (1..<24).map { key($0) })
        let received = Revisions()
        let (answeredAfterArriving, arrived) = try await following(feed) {
            let stream = feed.changes(after: start)
            // The feed's first read is over once this change has arrived.
            try await store.record(done(), for: key(0))
            let alone = await first(1, of: stream)
            let consumer = Task {
                var changes = alone
                for await change in stream {
                    received.insert(change.revision)
                    changes.append(change)
                    if changes.count == 1 + keys.count { break }
                }
                return changes
            }
            let answeredAfterArriving = await withTaskGroup(of: Bool.self) { group in
                for (index, key) in keys.enumerated() {
                    group.addTask {
                        await withCheckedContinuation { continuation in
                            let watch = Recorder.companion(nodeID: "watch", role: .watch, mayRecord: true)
                            CareCore(store: store).outcomes.record(done("watch"), for: key, messageID: "m\(index)", by: watch) { result in
                                let revision = (try? result.get())?.revision
                                continuation.resume(returning: revision.map(received.contains) ?? true)
                            }
                        }
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            return (answeredAfterArriving, await withTimeout(patience) { await consumer.value } ?? [])
        }
        #expect(answeredAfterArriving == 0)
        #expect(arrived.map(\.revision) == Array((start + 1)...(start + 24)))
        // The group's tasks reach the store in no fixed order: each key once, in any order.
        let events = arrived.dropFirst().compactMap(\.event)
        #expect(events.count == keys.count && Set(events) == Set(keys))
    }

    /// Group commits (accepted, replayed and rejected completions) and single writes, all at
    /// once: the feed hands over what the log holds, in order, each change once.
    @Test func changesCommittedTogetherAndAloneArriveAsTheLogHoldsThem() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        let (store, start) = (store, try await store.revision())
        let together = (0..<24).map { key($0, day: 1) }, alone = (0..<24).map { key($0, day: 2) }
        let unknown = EventKey(activityID: "pear", day: monday, occurrence: 0)
        let batches: [[StoreChange]] = try await following(feed) {
            let stream = feed.batches(after: start)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, (key, other)) in zip(together, alone).enumerated() {
                    group.addTask { _ = try await store.complete(done("watch"), for: key, messageID: "m\(index)") }
                    group.addTask { _ = try await store.complete(done("watch"), for: key, messageID: "m\(index)") }
                    group.addTask { _ = try await store.complete(done("watch"), for: unknown, messageID: "x\(index)") }
                    group.addTask { _ = try await store.record(done(), for: other) }
                }
                try await group.waitForAll()
            }
            let end = try await store.revision()
            return await withTimeout(patience) {
                var batches: [[StoreChange]] = []
                for await batch in stream {
                    batches.append(batch)
                    if batch.last?.revision == end { break }
                }
                return batches
            } ?? []
        }
        let history = try await store.history(after: start)
        #expect(history.count == together.count + alone.count)
        #expect(batches.flatMap { $0 } == history)
    }

    @Test func aLongBacklogArrivesWholeInOrder() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .milliseconds(10), logger: Logger(label: "test"))
        let start = try await store.revision()
        // More changes than the feed reads at a time (500).
        let keys = (0..<50).flatMap { day in (0..<24).map { key($0, day: day) } }
        try await store.keepTogether(keys.map { ($0, done()) })
        // Reading 1,200 changes took 16 s with the end-to-end tests beside it on two cores.
        let changes = try await following(feed) { await first(keys.count, of: feed.changes(after: start)) }
        #expect(changes.map(\.revision) == Array((start + 1)...(start + keys.count)))
    }

    @Test func stoppingTheFeedEndsEverySubscription() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .milliseconds(10), logger: Logger(label: "test"))
        let stream = feed.changes()
        let running = Task { try await feed.run() }
        let ended = Task {
            for await _ in stream {}
            return true
        }
        running.cancel()
        _ = await running.result
        #expect(await withTimeout(patience) { await ended.value } == true)
    }

    /// Subscribers cancelled while changes are being handed to them leave the feed going.
    /// (It once handed changes over inside its lock; a consumer cancelled at that moment
    /// held its task's lock and waited for the feed's, while the feed, resuming it, waited
    /// for the task's: the whole process stopped.)
    @Test(.timeLimit(.minutes(2))) func subscribersCancelledWhileChangesArriveLeaveTheFeedGoing() async throws {
        let feed = StoreChangeFeed(store: store, safetyNet: .seconds(3600), logger: Logger(label: "test"))
        let last = try await following(feed) {
            for round in 0..<48 {
                let start = try await store.revision()
                let consumers = (0..<16).map { _ in Task { for await _ in feed.changes(after: start) {} } }
                try await store.record(done(), for: key(round % 24, day: round / 24))
                for consumer in consumers { consumer.cancel() }
            }
            let start = try await store.revision()
            let stream = feed.changes(after: start)
            try await store.record(done(), for: key(0, day: 2))
            return await first(1, of: stream).map(\.revision)
        }
        #expect(last == [try await store.revision()])
    }
}

/// Revisions a consumer has had, looked at from the store's writer thread.
private final class Revisions: Sendable {
    private let revisions = Mutex<Set<Int>>([])

    func insert(_ revision: Int) {
        revisions.withLock { _ = $0.insert(revision) }
    }

    func contains(_ revision: Int) -> Bool {
        revisions.withLock { $0.contains(revision) }
    }
}
