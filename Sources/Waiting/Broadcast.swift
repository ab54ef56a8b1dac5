import Synchronization

/// Values sent to every stream subscribed, each stream keeping only the newest it has not
/// read: for "something changed, look again" and "the status is now …", where a slow reader
/// needs the latest, not every one. A stream leaves when its reader stops iterating.
public final class Broadcast<Value: Sendable>: Sendable {
    private struct State {
        var streams: [Int: AsyncStream<Value>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// A stream of the values sent from now on, beginning with `first` if given.
    public func subscribe(startingWith first: Value? = nil) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if let first { continuation.yield(first) }
        let id = state.withLock { state in
            state.next += 1
            state.streams[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.streams.removeValue(forKey: id) } }
        return stream
    }

    /// Hands `value` to every stream.
    public func send(_ value: Value) {
        for stream in state.withLock({ Array($0.streams.values) }) { stream.yield(value) }
    }
}
