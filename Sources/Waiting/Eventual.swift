import Clocks
import Synchronization

/// A result set once, which any number of tasks wait for: the first ``resolve(_:)`` wins.
/// Waiting ends when the result is set or the waiting task is cancelled, so it can be raced
/// against a sleep (``withTimeout(_:clock:_:)``) any number of times. (An `AsyncStream` cannot serve:
/// a consumer cancelled while waiting finishes the stream for good.)
public final class Eventual<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
        var next = 0
        /// Waits whose time ran out before they began (``value(within:clock:)``).
        var expired: Set<Int> = []

        mutating func newID() -> Int {
            next += 1
            return next
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether the result is set.
    public var isResolved: Bool { state.withLock { $0.result != nil } }

    /// Sets the result, if none was set, and wakes every waiter. Returns whether this call set it.
    @discardableResult
    public func resolve(_ result: Result<Value, any Error>) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>]? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters ?? [] { waiter.resume(with: result) }
        return waiters != nil
    }

    /// The result, once it is set; `CancellationError` if the task is cancelled first.
    public var value: Value {
        get async throws {
            try await wait(state.withLock { $0.newID() })
        }
    }

    /// The result if it is set within `timeout` on `clock` and is a value; `nil`
    /// otherwise, or if the task is cancelled first. As ``withTimeout(_:clock:_:)`` racing
    /// ``value``, for less: the setter resumes this task itself, and the sleep runs in a
    /// task of its own that is cancelled, not awaited.
    public func value(within timeout: Duration, clock: any WallClock = .system) async -> Value? {
        let id = state.withLock { $0.newID() }
        let timer = Task {
            try? await clock.sleep(timeout)
            guard !Task.isCancelled else { return }
            state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard state.result == nil else { return nil }
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.expired.insert(id)
                return nil
            }?.resume(throwing: CancellationError())
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        return try? await wait(id)
    }

    /// Waits as `id` for the result; `CancellationError` if the task is cancelled or the
    /// wait's time ran out first.
    private func wait(_ id: Int) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    if Task.isCancelled || state.expired.contains(id) { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

extension Eventual where Value == Void {
    /// Sets the result to success: a latch raised for good.
    public func raise() {
        resolve(.success(()))
    }
}
