import Clocks
import Synchronization

/// Wakes one waiter early; a wake with nobody waiting is kept for the next wait.
public final class WakeSignal: Sendable {
    public init() {}

    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when signalled or after `timeout`, whichever comes first: whether signalled.
    @discardableResult
    public func wait(timeout: Duration, clock: any WallClock = .system) async -> Bool {
        await withTimeout(timeout, clock: clock) { await self.signalled() } != nil
    }

    /// Waits for a signal; cancellation (before or after it starts waiting) ends the wait.
    private func signalled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
