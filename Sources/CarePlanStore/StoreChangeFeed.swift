import GRDB
import Logging
import ServiceLifecycle
import Synchronization

/// The store's changes, read once for the whole process and handed to every consumer.
///
/// A process runs one feed (a `Service`, in its `ServiceGroup`) and every consumer
/// subscribes to it. The feed reads the change log when a commit in this process grows it
/// (``ChangeLogObserver`` tells it) and every ``pollInterval`` for other processes' writes
/// (the command line's, say). A store that cannot be read is logged and read again at the
/// next poll: consumers only ever see changes, in revision order, each once.
public final class StoreChangeFeed: Service, Sendable {
    private struct Subscriber {
        /// The newest revision it has had (`nil`: none yet, it starts at the next read).
        var after: Int?
        /// Hands it the new changes of one read, in revision order.
        let deliver: @Sendable (ArraySlice<StoreChange>) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// Whether the last read failed (logged once per run of failures).
        var failing = false
    }

    private let store: CarePlanStore
    /// How often the change log is read for other processes' commits.
    public let pollInterval: Duration
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    /// How many changes are read at a time.
    static let pageSize = 500

    public init(store: CarePlanStore, pollInterval: Duration = .milliseconds(50), logger: Logger) {
        self.store = store
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Every change committed after `revision`, by this process or another, in revision
    /// order; without a revision, every change after the newest when the feed next reads.
    /// It ends when the feed stops or the consumer stops iterating.
    public func changes(after revision: Int? = nil) -> AsyncStream<StoreChange> {
        subscribe(after: revision) { continuation, changes in
            for change in changes { continuation.yield(change) }
        }
    }

    /// The same changes as ``changes(after:)``, as the feed reads them: each element holds
    /// the changes one read found (one commit's, or several that came together), so that a
    /// consumer can do once per batch what it would otherwise do per change.
    public func batches(after revision: Int? = nil) -> AsyncStream<[StoreChange]> {
        subscribe(after: revision) { continuation, changes in continuation.yield(Array(changes)) }
    }

    private func subscribe<Element: Sendable>(
        after revision: Int?,
        _ yield: @escaping @Sendable (AsyncStream<Element>.Continuation, ArraySlice<StoreChange>) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let subscriber = Subscriber(after: revision, deliver: { yield(continuation, $0) }, finish: { continuation.finish() })
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        wake.continuation.yield()
        return stream
    }

    /// Follows the store until cancelled or a graceful shutdown, then ends every
    /// subscriber's stream.
    public func run() async throws {
        defer {
            // Finished outside the lock: finishing runs the stream's onTermination, which locks.
            let subscribers = state.withLock { state in
                defer { state.subscribers.removeAll() }
                return state.subscribers.values
            }
            for subscriber in subscribers { subscriber.finish() }
        }
        // Added on GRDB's writer thread, where it starts at once (elsewhere it would block for
        // a write access), and removed there when the feed stops.
        let observer = try await store.pool.writeWithoutTransaction { [wake] db in
            let observer = ChangeLogObserver(newest: try CarePlanStore.revision(db)) { wake.continuation.yield() }
            db.add(transactionObserver: observer, extent: .observerLifetime)
            return observer
        }
        defer { store.pool.asyncWriteWithoutTransaction { $0.remove(transactionObserver: observer) } }
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                group.addTask { [wake, pollInterval] in
                    while (try? await Task.sleep(for: pollInterval)) != nil { wake.continuation.yield() }
                }
                for await _ in wake.stream {
                    if Task.isCancelled { break }
                    await deliver()
                }
                group.cancelAll()
            }
        }
    }

    /// Reads the changes after the furthest-behind subscriber's revision and gives each
    /// subscriber those it has not had: one read of the store when nothing is new or one
    /// page holds what is, the newest revision and the changes read together.
    private func deliver() async {
        var after = 0
        do {
            let oldest = state.withLock { $0.subscribers.values.compactMap(\.after).min() }
            var read = try await store.newestAndChanges(after: oldest, limit: Self.pageSize)
            state.withLock { state in
                // A new subscriber without a revision starts after the newest.
                for (id, subscriber) in state.subscribers where subscriber.after == nil {
                    state.subscribers[id]?.after = read.newest
                }
            }
            after = oldest ?? read.newest
            while let last = read.changes.last?.revision {
                let from = after
                let deliveries = state.withLock { state in
                    var deliveries: [(deliver: @Sendable (ArraySlice<StoreChange>) -> Void, changes: ArraySlice<StoreChange>)] = []
                    for (id, subscriber) in state.subscribers {
                        // One that subscribed after this read began from an earlier revision
                        // than `from` waits for the next read, which starts from its own.
                        guard let had = subscriber.after, had >= from, had < last else { continue }
                        deliveries.append((subscriber.deliver, read.changes.drop { $0.revision <= had }))
                        state.subscribers[id]?.after = last
                    }
                    return deliveries
                }
                // Handed over outside the lock: a yield may resume the consumer's task, which
                // takes that task's lock, while a consumer being cancelled holds its task's
                // lock and runs the stream's onTermination, which takes this one (a deadlock
                // that hung the test suite once).
                for delivery in deliveries { delivery.deliver(delivery.changes) }
                after = last
                guard last < read.newest else { break }
                read = try await store.newestAndChanges(after: last, limit: Self.pageSize)
            }
            if state.withLock({ $0.failing }) {
                logger.notice("the store's changes can be read again", metadata: ["revision": "\(after)"])
                state.withLock { $0.failing = false }
            }
        } catch {
            guard !Task.isCancelled else { return }  // the feed is stopping
            let first = state.withLock { state in
                defer { state.failing = true }
                return !state.failing
            }
            if first {
                logger.warning("could not read the store's changes; trying again at each poll", metadata: [
                    "revision": "\(after)", "error": "\(error)",
                ])
            }
        }
    }
}
