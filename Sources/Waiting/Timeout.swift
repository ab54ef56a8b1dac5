/// How the waits of CareSync sleep: `Task.sleep` in programs, a clock of their own in tests
/// that run days in milliseconds.
public typealias Sleep = @Sendable (Duration) async throws -> Void

/// The real sleep.
public let taskSleep: Sleep = { try await Task.sleep(for: $0) }

/// The result of `operation`, or `nil` if it has none within `timeout` (slept with `sleep`).
/// Whichever comes second is cancelled: `operation` must end when cancelled.
public func withTimeout<T: Sendable>(
    _ timeout: Duration, sleep: @escaping Sleep = taskSleep, _ operation: @escaping @Sendable () async -> T?
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await sleep(timeout)  // cancelled: the operation came first
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
