import Foundation
import Synchronization
import Testing
import Clocks
import TestSupport
import Waiting

struct BackoffTests {
    @Test func doublesFromTheFirstWaitUpToTheMaximum() {
        let backoff = Backoff(first: .milliseconds(100), maximum: .seconds(5))
        #expect((0..<8).map { backoff.delay(attempt: $0, random: 0.5) } == [
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
            .milliseconds(3200), .seconds(5), .seconds(5),
        ])
        // Far attempts neither overflow nor trap; negative ones wait the first delay.
        #expect(backoff.delay(attempt: 10_000) == .seconds(5))
        #expect(backoff.delay(attempt: -3) == .milliseconds(100))
    }

    @Test func jitterShortensEachWaitByUpToItsFraction() {
        let backoff = Backoff(first: .seconds(1), maximum: .seconds(8), jitter: 0.3)
        #expect(backoff.delay(attempt: 2, random: 0) == .seconds(4))
        #expect(backoff.delay(attempt: 2, random: 0.5) == .milliseconds(3400))
        #expect(backoff.delay(attempt: 2, random: 0.999_999) > .milliseconds(2800))
        #expect(Backoff(first: .seconds(1), maximum: .seconds(1), jitter: 7).jitter == 1)
    }
}

struct TimeoutTests {
    @Test func theOperationsResultWhenItComesFirst() async {
        let clock = ManualClock()
        // The time never passes here: only the operation can end the wait.
        #expect(await withTimeout(.seconds(1), clock: clock) { 42 } == 42)
    }

    @Test func nilWhenTheTimeoutComesFirstAndTheOperationIsCancelled() async {
        let clock = ManualClock()
        let cancelled = Mutex(false)
        let waiting = Task {
            await withTimeout(.seconds(1), clock: clock) { () async -> Int? in
                // Waits until cancelled, as a reply that never comes.
                try? await Task.sleep(for: .seconds(3600))
                cancelled.withLock { $0 = Task.isCancelled }
                return 1
            }
        }
        await clock.sleeping()
        clock.advance(by: 1)
        #expect(await waiting.value == nil)
        #expect(cancelled.withLock { $0 })
    }
}

struct EventualTests {
    /// Waits that time out (their waiting cancelled) leave it working: the bug of an
    /// AsyncStream in its place, which a cancelled consumer finished for good, so that every
    /// later wait between a companion's connection attempts returned at once.
    @Test func timedOutWaitsLeaveItWorkingAndARaiseEndsTheNext() async {
        let latch = Eventual<Void>()
        let clock = ManualClock()
        for round in 1...3 {
            let waiting = Task { await withTimeout(.seconds(1), clock: clock) { (try? await latch.value).map { true } } }
            await clock.sleeping()
            clock.advance(by: 1)
            #expect(await waiting.value == nil, "round \(round) should time out")
        }
        let raised = Task { await withTimeout(.seconds(1), clock: clock) { (try? await latch.value).map { true } } }
        await clock.sleeping()
        latch.raise()
        #expect(await raised.value == true)
        // Raised, it stays raised: a wait after returns at once; a second resolve changes nothing.
        #expect(await withTimeout(.seconds(1), clock: clock) { (try? await latch.value).map { true } } == true)
        #expect(latch.isResolved)
    }
}

extension EventualTests {
    /// Every waiter gets the one result, a failure too; later resolutions are ignored.
    @Test func everyWaiterGetsTheFirstResult() async {
        let address = Eventual<Int>()
        let waiters = (0..<3).map { _ in Task { try await address.value } }
        address.resolve(.failure(CancellationError()))
        address.resolve(.success(7654))
        for waiter in waiters { await #expect(throws: CancellationError.self) { try await waiter.value } }
        await #expect(throws: CancellationError.self) { try await address.value }
    }
}

extension EventualTests {
    /// A wait with a time limit: the value when it is set first (time never passes here),
    /// `nil` when the time runs out first or the result is a failure, and the eventual
    /// still works after a wait that timed out.
    @Test func aWaitWithinATimeGetsTheValueOrNil() async {
        let clock = ManualClock()
        let answer = Eventual<Int>()
        let late = Task { await answer.value(within: .seconds(1), clock: clock) }
        await clock.sleeping()
        clock.advance(by: 1)
        #expect(await late.value == nil)
        let waiting = Task { await answer.value(within: .seconds(1), clock: clock) }
        await clock.sleeping()
        answer.resolve(.success(42))
        #expect(await waiting.value == 42)
        #expect(await answer.value(within: .seconds(1), clock: clock) == 42)
        let failed = Eventual<Int>()
        failed.resolve(.failure(CancellationError()))
        #expect(await failed.value(within: .seconds(1), clock: clock) == nil)
    }
}

/// TestSupport's manual clock as a Swift `Clock`: its instants move only with the test.
struct ManualClockAsAClockTests {
    @Test func nowMovesWithTheClock() {
        let clock = ManualClock()
        let start: ManualClock.Instant = clock.now
        clock.advance(by: 90)
        #expect(start.duration(to: clock.now) == .seconds(90))
        #expect(clock.minimumResolution > .zero)
    }

    @Test func aSleepUntilAnInstantEndsWhenTheClockPassesIt() async throws {
        let clock = ManualClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.sleep(until: deadline, tolerance: nil)
            woke.withLock { $0 = true }
        }
        await clock.sleeping()
        clock.advance(by: 30)
        #expect(clock.sleeps == 1, "not yet at the deadline")
        #expect(!woke.withLock { $0 })
        clock.advance(by: 31)
        try await sleeper.value
        #expect(woke.withLock { $0 })
    }

    /// Code generic over Swift's `Clock` takes it as it takes `ContinuousClock`.
    @Test func genericCodeSleepsOnIt() async throws {
        func elapsed<C: Clock>(on clock: C, sleeping duration: C.Duration) async throws -> C.Duration {
            let start = clock.now
            try await clock.sleep(for: duration)
            return start.duration(to: clock.now)
        }
        let clock = ManualClock()
        let sleeper = Task { try await elapsed(on: clock, sleeping: .seconds(5)) }
        await clock.sleeping()
        clock.advance(by: 5)
        #expect(try await sleeper.value == .seconds(5))
    }
}

struct ShiftedClockTests {
    @Test func readsFromItsStartAndRunsAtTheMachinesPace() {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let clock = ShiftedClock(start: start)
        let read = clock.now.timeIntervalSince(start)
        #expect(read >= 0 && read < 5)
    }

    /// A test moves the clock a minute at a time: the hour's sleep ends on the move that
    /// takes the clock past its end, not an hour later, and not on any move before.
    @Test func aMovePastASleepsEndEndsIt() async throws {
        let clock = ShiftedClock(start: Date(timeIntervalSince1970: 1_795_000_000))
        let slept = Mutex<(from: Date, to: Date)?>(nil)
        let sleeper = Task {
            let from = clock.now
            try await clock.sleep(.seconds(3600))
            slept.withLock { $0 = (from, clock.now) }
        }
        var moves = 0
        while slept.withLock({ $0 == nil }), moves < 100_000 {
            clock.advance(by: 60)
            moves += 1
            await Task.yield()
        }
        try await sleeper.value
        let (from, to) = try #require(slept.withLock { $0 })
        #expect(to.timeIntervalSince(from) >= 3600)
        #expect(moves >= 60)
    }

    @Test func aShortSleepEndsOnTheMachinesClock() async throws {
        let clock = ShiftedClock(start: Date(timeIntervalSince1970: 0))
        let started = ContinuousClock.now
        try await clock.sleep(.milliseconds(20))
        #expect(started.duration(to: .now) >= .milliseconds(20))
    }

    @Test func aCancelledSleepThrows() async {
        let clock = ShiftedClock(start: Date())
        let sleeper = Task { try await clock.sleep(.seconds(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
