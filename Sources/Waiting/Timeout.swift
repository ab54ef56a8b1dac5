import Clocks

/// The result of `operation`, or `nil` if it has none within `timeout` on `clock`.
/// Whichever comes second is cancelled: `operation` must end when cancelled.
public func withTimeout<T: Sendable>(
    _ timeout: Duration, clock: any WallClock = .system, _ operation: @escaping @Sendable () async -> T?
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await clock.sleep(timeout)  // cancelled: the operation came first
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
