import Synchronization
import Clocks
import Waiting

/// Values that arrive for a key, awaited with a timeout. A value that arrives before its
/// waiter is kept for it, so `expect` then send then `wait` cannot miss a fast answer.
final class Waiters<Value: Sendable>: Sendable {
    private enum Slot {
        case expecting
        case arrived(Value)
        case waiting(CheckedContinuation<Value?, Never>)
    }

    private let slots = Mutex<[String: Slot]>([:])

    /// Starts keeping a value that arrives for `key`.
    func expect(_ key: String) {
        slots.withLock { slots in
            if slots[key] == nil { slots[key] = .expecting }
        }
    }

    /// The value for `key`, or `nil` if none arrives within `timeout` (or the task is cancelled).
    func wait(_ key: String, timeout: Duration, clock: any WallClock) async -> Value? {
        await withTimeout(timeout, clock: clock) { await self.arrival(key) }
    }

    /// Waits for the value of `key`; cancellation, before or after it starts waiting, gives `nil`.
    private func arrival(_ key: String) async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let early: Value?? = slots.withLock { slots in
                    if case .arrived(let value) = slots[key] {
                        slots.removeValue(forKey: key)
                        return .some(value)
                    }
                    if Task.isCancelled {
                        slots.removeValue(forKey: key)
                        return .some(nil)
                    }
                    slots[key] = .waiting(continuation)
                    return .none
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            resolve(key, nil)
        }
    }

    /// Delivers `value` (or `nil`: give up) to the waiter for `key`, if one is expected.
    func resolve(_ key: String, _ value: Value?) {
        let waiter: CheckedContinuation<Value?, Never>? = slots.withLock { slots in
            switch slots[key] {
            case .waiting(let continuation):
                slots.removeValue(forKey: key)
                return continuation
            case .expecting:
                if let value { slots[key] = .arrived(value) } else { slots.removeValue(forKey: key) }
                return nil
            case .arrived, nil:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }
}
