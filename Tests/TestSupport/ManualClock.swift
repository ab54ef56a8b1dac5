import Foundation
import Synchronization
import Clocks

/// A wall clock the test moves, and a sleep on it: a sleeper wakes once the clock reaches
/// the end of its sleep, or when cancelled (then it throws). Made with `sleepsPass`, a sleep
/// instead moves the clock on by its duration and returns at once: time passes only by
/// sleeping (a retry loop's waits). Either way it keeps every duration asked for.
///
/// It is a Swift `Clock` too, its instants dates, for code that takes one.
public final class ManualClock: WallClock, Clock {
    public typealias Instant = Date

    private struct State {
        var now: Date
        var requested: [Duration] = []
        var sleepers: [UUID: (until: Date, wake: CheckedContinuation<Void, Never>)] = [:]
        /// Tests waiting for a number of sleepers.
        var watchers: [UUID: (count: Int, wake: CheckedContinuation<Void, Never>)] = [:]

        /// The watchers whose number of sleepers is reached, removed.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let due = watchers.filter { $0.value.count <= sleepers.count }
            for id in due.keys { watchers.removeValue(forKey: id) }
            return due.values.map(\.wake)
        }
    }

    private let state: Mutex<State>
    private let sleepsPass: Bool

    /// A clock at `start` (by default 2026-11-18 11:06:40 UTC); with `sleepsPass`, one that
    /// a sleep moves on (see the type).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000), sleepsPass: Bool = false) {
        state = Mutex(State(now: start))
        self.sleepsPass = sleepsPass
    }

    public var now: Date { state.withLock { $0.now } }

    /// Moves are exact to the nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration a sleep asked for, in order: what a retry loop waited.
    public var requestedSleeps: [Duration] { state.withLock { $0.requested } }

    /// How many sleeps wait on the clock now: a test checks that a move woke nothing yet.
    public var sleeps: Int { state.withLock { $0.sleepers.count } }

    /// When the sleeps waiting now end, soonest first.
    public var wakeTimes: [Date] { state.withLock { $0.sleepers.values.map(\.until).sorted() } }

    /// Moves the clock on by `seconds`, waking every sleep that ends by then.
    public func advance(by seconds: TimeInterval) {
        set(now.addingTimeInterval(seconds))
    }

    /// Moves the clock to `date`, waking every sleep that ends by then.
    public func set(_ date: Date) {
        let woken = state.withLock { state in
            state.now = date
            let due = state.sleepers.filter { $0.value.until <= date }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.wake)
        }
        for wake in woken { wake.resume() }
    }

    public func sleep(_ duration: Duration) async throws {
        if sleepsPass {
            state.withLock { state in
                state.requested.append(duration)
                state.now = state.now.addingTimeInterval(duration.inSeconds)
            }
            return try Task.checkCancellation()
        }
        try await sleep(after: duration, until: nil)
    }

    /// Returns once the clock reaches `deadline` (at once if it has), or throws when
    /// cancelled; a clock whose sleeps pass moves on to the deadline.
    public func sleep(until deadline: Date, tolerance: Duration? = nil) async throws {
        if sleepsPass {
            state.withLock { state in
                state.requested.append(state.now.duration(to: deadline))
                state.now = max(state.now, deadline)
            }
            return try Task.checkCancellation()
        }
        try await sleep(after: nil, until: deadline)
    }

    /// A sleep for `duration` from now, or until `deadline`.
    private func sleep(after duration: Duration?, until deadline: Date?) async throws {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    let until = deadline ?? state.now.addingTimeInterval(duration?.inSeconds ?? 0)
                    state.requested.append(duration ?? state.now.duration(to: until))
                    guard until > state.now, !Task.isCancelled else { return (true, []) }
                    state.sleepers[id] = (until, wake)
                    return (false, state.satisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                if resumeNow { wake.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.wake.resume()
        }
        try Task.checkCancellation()
    }

    /// Returns once at least `count` sleeps wait on the clock, or when cancelled: a test moves
    /// the clock only after what it moves it for has begun to wait.
    public func sleeping(_ count: Int = 1) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard state.sleepers.count < count, !Task.isCancelled else { return true }
                    state.watchers[id] = (count, wake)
                    return false
                }
                if resumeNow { wake.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.wake.resume()
        }
    }
}

/// Dates as the instants of a Swift `Clock` (``ManualClock``'s), a `Duration` apart.
extension Date: @retroactive InstantProtocol {
    public func advanced(by duration: Swift.Duration) -> Date { addingTimeInterval(duration.inSeconds) }

    public func duration(to other: Date) -> Swift.Duration { .seconds(other.timeIntervalSince(self)) }
}
