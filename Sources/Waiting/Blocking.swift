import Dispatch

/// Runs `body`, which blocks (opens and migrates a database, say), on a Dispatch thread
/// instead of the caller's: the cooperative pool has one thread per core, and a blocked
/// one stalls every task queued behind it.
public func blocking<T: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        DispatchQueue.global().async {
            continuation.resume(returning: Result(catching: body))
        }
    }
    return try result.get()
}
