import Synchronization

/// Requests committed together: one that finds no commit in flight is committed at once,
/// and those that arrive while a commit is in flight wait for it and then go together in
/// the next one (one transaction, one fsync). Each caller gets its own result once the
/// commit that holds its request has ended; requests are committed in the order they came.
///
/// No task of its own: the caller whose request opens a batch commits it, then hands the
/// next batch to the first caller waiting, so nobody commits more than one batch.
final class GroupCommit<Request: Sendable, Response: Sendable>: Sendable {
    typealias Outcome = Result<Response, CarePlanStoreError>

    private enum Wake {
        case lead
        case done(Outcome)
    }

    private struct Waiter {
        let id: Int
        let request: Request
        /// `nil` once the caller has been woken to lead.
        var continuation: CheckedContinuation<Wake, Never>?
    }

    /// The queue is empty unless a commit is in flight.
    private struct State {
        var queue: [Waiter] = []
        var committing = false
        var lastID = 0
    }

    private let state = Mutex(State())
    /// The most requests one commit holds.
    let maximumBatch: Int

    init(maximumBatch: Int = 512) {
        self.maximumBatch = maximumBatch
    }

    /// Requests waiting for the commit in flight to end.
    var waiting: Int {
        state.withLock { $0.queue.count }
    }

    /// Commits `request` with the others waiting now and returns its result.
    ///
    /// - Parameter commit: commits a batch in one transaction and returns a result for each
    ///   request, in order (every caller passes the same).
    func submit(
        _ request: Request, commit: @Sendable ([Request]) async -> [Outcome]
    ) async throws(CarePlanStoreError) -> Response {
        var id = 0
        let wake = await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
            let leads = state.withLock { state in
                state.lastID += 1
                id = state.lastID
                let leads = !state.committing
                state.committing = true
                state.queue.append(Waiter(id: id, request: request, continuation: leads ? nil : continuation))
                return leads
            }
            if leads { continuation.resume(returning: .lead) }
        }
        if case .done(let outcome) = wake { return try outcome.get() }
        // This caller's request is first in the queue: it opens the batch.
        let batch = state.withLock { state in
            let batch = state.queue.prefix(maximumBatch)
            state.queue.removeFirst(batch.count)
            return Array(batch)
        }
        let outcomes = await commit(batch.map(\.request))
        let next = state.withLock { state -> CheckedContinuation<Wake, Never>? in
            guard !state.queue.isEmpty else {
                state.committing = false
                return nil
            }
            defer { state.queue[0].continuation = nil }
            return state.queue[0].continuation
        }
        next?.resume(returning: .lead)
        var own: Outcome?
        for (waiter, outcome) in zip(batch, outcomes) {
            if waiter.id == id { own = outcome } else { waiter.continuation?.resume(returning: .done(outcome)) }
        }
        return try (own ?? .failure(.database("the group commit returned no result for a request"))).get()
    }
}
