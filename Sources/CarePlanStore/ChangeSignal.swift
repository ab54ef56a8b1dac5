import Synchronization

/// Wakes this process's change observers as soon as a write commits, so they need not
/// wait for their next poll (polling remains for other processes' writes).
final class ChangeSignal: Sendable {
    private let waiters = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A stream that yields after every commit in this process; newest only.
    func subscribe() -> (id: Int, stream: AsyncStream<Void>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        waiters.withLock { $0[id] = continuation }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        waiters.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    func notify() {
        waiters.withLock { waiters in
            for continuation in waiters.values { continuation.yield() }
        }
    }

    /// Wakes the subscriber `id` without a commit (its poll timer does this).
    func poke(_ id: Int) {
        _ = waiters.withLock { $0[id]?.yield() }
    }
}
