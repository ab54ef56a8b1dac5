import Foundation
import Synchronization

/// The machine's clock, reading `start` at the moment it is made and running at the
/// machine's pace from there: a primary started "on a Thursday at 07:59" for a
/// demonstration (`caresync primary --clock-start`). A test that drives a real process also
/// moves it forward (`--clock-control`, ``advance(by:)``): every sleep that ends by the new
/// time returns at once, so "08:00" is reached in milliseconds rather than waited for.
public final class ShiftedClock: WallClock {
    private struct State {
        var offset: TimeInterval
        /// Counts the moves, so that a sleeper sees a move made while it was getting ready.
        var moves = 0
        var sleepers: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state: Mutex<State>

    public init(start: Date) {
        state = Mutex(State(offset: start.timeIntervalSinceNow))
    }

    public var now: Date { Date().addingTimeInterval(state.withLock { $0.offset }) }

    /// Moves the clock on by `seconds` (not back: a negative amount is taken as none).
    public func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state in
            state.offset += max(0, seconds)
            state.moves += 1
            defer { state.sleepers.removeAll() }
            return Array(state.sleepers.values)
        }
        for sleeper in woken { sleeper.resume() }
    }

    /// Sleeps on the machine's clock until the end, waking early to look again whenever the
    /// clock is moved.
    public func sleep(_ duration: Duration) async throws {
        let end = now.addingTimeInterval(duration.inSeconds)
        while true {
            let (remaining, moves) = state.withLock { (end.timeIntervalSince(Date().addingTimeInterval($0.offset)), $0.moves) }
            guard remaining > 0 else { break }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await Task.sleep(for: .seconds(remaining)) }
                group.addTask { await self.moved(since: moves) }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
        try Task.checkCancellation()
    }

    /// Returns once the clock has moved since it had moved `moves` times, or on cancellation.
    private func moved(since moves: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (sleeper: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.moves == moves, !Task.isCancelled else { return true }
                    state.sleepers[id] = sleeper
                    return false
                }
                if now { sleeper.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.resume()
        }
    }
}
