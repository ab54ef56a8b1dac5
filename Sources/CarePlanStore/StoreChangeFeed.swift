import GRDB
import Logging
import ServiceLifecycle
import Synchronization

/// The store's changes, read once for the whole process and handed to every consumer.
///
/// A process runs one feed (a `Service`, in its `ServiceGroup`) and every consumer
/// subscribes to it. The feed reads the change log when a commit in this process grows it
/// (``ChangeLogObserver`` tells it), when the store's files are written by another process
/// (the command line, say: ``StoreFileWatcher``, inotify; the feed waits for that process's
/// commit to end before it reads), and every ``safetyNet`` in case a
/// write went unnoticed; nothing else wakes it. Where inotify is not available it polls every
/// ``fallbackPoll`` instead. A store that cannot be read is logged and read again at the
/// next wake: consumers only ever see changes, in revision order, each once.
public final class StoreChangeFeed: Service, Sendable {
    private struct Subscriber {
        /// The newest revision it has had (`nil`: none yet, it starts at the next read).
        var after: Int?
        /// Hands it the new changes of one read, in revision order.
        let deliver: @Sendable (ArraySlice<StoreChange>) -> Void
        let finish: @Sendable () -> Void
    }

    /// Changes for one subscriber, handed over outside the lock.
    private struct Delivery {
        let deliver: @Sendable (ArraySlice<StoreChange>) -> Void
        let changes: ArraySlice<StoreChange>
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// Whether the last read failed (logged once per run of failures).
        var failing = false
        /// Deliveries in the order they were made; `handingOver` while a thread hands them.
        var outgoing: [Delivery] = []
        var handingOver = false
        /// Whether the store's files were written since the last read began.
        var filesWritten = false
    }

    private let store: CarePlanStore
    /// How often the change log is read though nothing said it changed.
    public let safetyNet: Duration
    /// Whether writes to the store's files wake the feed (tests of the safety net turn it off).
    private let watchesFiles: Bool
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    /// How many changes are read at a time.
    static let pageSize = 500

    /// How often the change log is read where the store's files cannot be watched.
    public static let fallbackPoll = Duration.milliseconds(50)

    /// The safety read's interval unless told otherwise: rare, since inotify tells of every write.
    public static let defaultSafetyNet = Duration.seconds(300)

    public convenience init(store: CarePlanStore, safetyNet: Duration = defaultSafetyNet, logger: Logger) {
        self.init(store: store, safetyNet: safetyNet, watchesFiles: true, logger: logger)
    }

    init(store: CarePlanStore, safetyNet: Duration, watchesFiles: Bool, logger: Logger) {
        self.store = store
        self.safetyNet = safetyNet
        self.watchesFiles = watchesFiles
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
        let observer = try await store.observeChangeLog(grown: { [wake] in wake.continuation.yield() }) { [self] revision, changes in
            // Subscribers that had not reached `revision` (or have no revision yet) read.
            if hand(changes, after: revision) { wake.continuation.yield() }
        }
        defer { store.stopObserving(observer) }
        let watcher = watchesFiles ? StoreFileWatcher(path: store.path) { [self] in
            state.withLock { $0.filesWritten = true }
            wake.continuation.yield()
        } : nil
        // A write begun before the watch was set has told nothing: the first read waits for it.
        if watcher != nil { state.withLock { $0.filesWritten = true } }
        if watchesFiles && watcher == nil {
            logger.notice("the store's files cannot be watched (no inotify): reading its changes every 50 ms", metadata: ["path": "\(store.path)"])
        }
        let interval = watchesFiles && watcher == nil ? Self.fallbackPoll : safetyNet
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                group.addTask { [wake] in
                    while (try? await Task.sleep(for: interval)) != nil { wake.continuation.yield() }
                }
                for await _ in wake.stream {
                    if Task.isCancelled { break }
                    await deliver()
                }
                group.cancelAll()
            }
        }
        // Watched until here (and not released before).
        watcher?.stop()
    }

    /// Reads the changes after the furthest-behind subscriber's revision and gives each
    /// subscriber those it has not had: one read of the store when nothing is new or one
    /// page holds what is, the newest revision and the changes read together.
    private func deliver() async {
        var after = 0
        do {
            // A write seen in the files may not be readable yet: wait for its commit to end.
            if state.withLock({ state in defer { state.filesWritten = false }; return state.filesWritten }) {
                try await store.waitForOtherWriters()
            }
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
                hand(read.changes, after: after)
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
                logger.warning("could not read the store's changes; trying again at each wake", metadata: [
                    "revision": "\(after)", "error": "\(error)",
                ])
            }
        }
    }

    /// Gives each subscriber that has had every change up to `revision` those of `changes`
    /// (every change after `revision`, in order) it has not had. Returns whether a
    /// subscriber was left out because it is further behind, or has no revision yet (one
    /// that subscribed after a read began waits for the next, which starts from its own).
    @discardableResult
    private func hand(_ changes: [StoreChange], after revision: Int) -> Bool {
        guard let last = changes.last?.revision else { return false }
        let (behind, handsOver) = state.withLock { state in
            var behind = false
            for (id, subscriber) in state.subscribers {
                guard let had = subscriber.after, had >= revision else {
                    behind = true
                    continue
                }
                guard had < last else { continue }
                state.outgoing.append(Delivery(deliver: subscriber.deliver, changes: changes.drop { $0.revision <= had }))
                state.subscribers[id]?.after = last
            }
            let handsOver = !state.handingOver && !state.outgoing.isEmpty
            if handsOver { state.handingOver = true }
            return (behind, handsOver)
        }
        if handsOver { handOver() }
        return behind
    }

    /// Hands the deliveries over in the order they were made, until none is left, even
    /// those another thread (the feed's task, the store's writer) makes meanwhile.
    ///
    /// Outside the lock: a yield may resume the consumer's task, which takes that task's
    /// lock, while a consumer being cancelled holds its task's lock and runs the stream's
    /// onTermination, which takes this one (a deadlock that hung the test suite once).
    private func handOver() {
        while let deliveries = state.withLock({ state -> [Delivery]? in
            guard !state.outgoing.isEmpty else {
                state.handingOver = false
                return nil
            }
            defer { state.outgoing.removeAll() }
            return state.outgoing
        }) {
            for delivery in deliveries { delivery.deliver(delivery.changes) }
        }
    }
}
