import Foundation

/// Runs `body`, which blocks (opens and migrates a database, waits for a process, say), on
/// a thread of its own instead of the caller's. Not on a Dispatch queue: on Linux, Swift's
/// tasks run on Dispatch's global queues, one thread per core, so a blocked global queue
/// thread stalls every task behind it as a blocked task would (the test suite's waits for
/// child processes slowed every store read to tens of seconds on two cores).
public func blocking<T: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread {
            continuation.resume(returning: Result(catching: body))
        }.start()
    }
    return try result.get()
}
