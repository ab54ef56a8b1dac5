import Synchronization

/// Reports printed one at a time: each PDF starts a headless Chromium, so a second request
/// waits for the first, a few more wait behind it, and any beyond those are refused
/// (``WebFailure/printerBusy``) rather than starting printers without bound.
final class PrintQueue: Sendable {
    private struct State {
        var printing = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// How many may wait while one prints.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Runs `job` (a print) once every print before it has finished.
    ///
    /// - Throws: ``WebFailure/printerBusy`` when `capacity` prints wait already.
    func run<T: Sendable>(_ job: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await job()
    }

    private func enter() async throws(WebFailure) {
        enum Turn { case now, wait, refused }
        let turn: Turn = state.withLock { state in
            if !state.printing {
                state.printing = true
                return .now
            }
            return state.waiting.count < capacity ? .wait : .refused
        }
        switch turn {
        case .now: return
        case .refused: throw .printerBusy
        case .wait:
            await withCheckedContinuation { continuation in
                // Queued under the lock again: the printer may have finished in between.
                let goes = state.withLock { state in
                    guard state.printing else {
                        state.printing = true
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if goes { continuation.resume() }
            }
        }
    }

    /// Hands the printer to the first waiting, or frees it.
    private func leave() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.printing = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
