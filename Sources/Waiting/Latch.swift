import Synchronization

/// A one-way signal: once raised it stays raised. Waiting for it ends when it is raised or
/// when the waiting task is cancelled, so it can be raced against a sleep (``withTimeout``)
/// any number of times. (An `AsyncStream` cannot serve: a consumer cancelled while waiting
/// finishes the stream for good.)
public final class Latch: Sendable {
    private struct State {
        var raised = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var isRaised: Bool { state.withLock { $0.raised } }

    /// Raises the latch and wakes every waiter.
    public func raise() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.raised = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is raised, or the task is cancelled.
    public func wait() async {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.raised || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
