import Synchronization

/// A result set once, which any number of tasks wait for: the first ``resolve(_:)`` wins.
final class Eventual<Value: Sendable>: Sendable {
    private let state = Mutex<(result: Result<Value, any Error>?, waiters: [CheckedContinuation<Value, any Error>])>((nil, []))

    /// Sets the result, if none was set, and wakes every waiter.
    func resolve(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The result, once it is set.
    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = state.withLock { state -> Result<Value, any Error>? in
                    if state.result == nil { state.waiters.append(continuation) }
                    return state.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}
