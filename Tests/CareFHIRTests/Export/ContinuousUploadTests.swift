@testable import CareFHIR
import Foundation
import Synchronization
import Testing
import TestSupport
import Waiting

/// Uploads woken by the store's writes: a round after each write, at most one per interval, a
/// safety round when nothing was written for long, and nothing in between (on a clock the
/// test moves).
struct ContinuousUploadTests {
    @Test func roundsFollowWritesAtMostOncePerIntervalWithASafetyNet() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_500_000))
        let rounds = Mutex(0)
        let upload = ContinuousUpload(target: { rounds.withLock { $0 += 1 }; return nil }, interval: .seconds(10), clock: clock) { _ in }
        let written = WakeSignal()
        let running = Task { await upload.run(wakingOn: written, safetyNet: .seconds(600)) }
        defer { running.cancel() }
        let count = { rounds.withLock { $0 } }

        try await waitFor("the first round, at once") { count() == 1 }
        let first = clock.now
        try await waitFor("waiting for a write", seen: { "\(clock.wakeTimes)" }) { clock.wakeTimes == [first.addingTimeInterval(600)] }
        clock.advance(by: 100)
        #expect(count() == 1, "nothing written, nothing to do for 100 s")

        written.signal()
        try await waitFor("a round after the write") { count() == 2 }
        // A write 3 s later: its round waits until 10 s have passed since the last began.
        let second = clock.now
        try await waitFor("waiting for a write again", seen: { "\(clock.wakeTimes)" }) { clock.wakeTimes == [second.addingTimeInterval(600)] }
        clock.advance(by: 3)
        written.signal()
        try await waitFor("the rest of the interval", seen: { "\(clock.wakeTimes)" }) { clock.wakeTimes == [second.addingTimeInterval(10)] }
        #expect(count() == 2)
        clock.advance(by: 7)
        try await waitFor("the round of the second write, 10 s after the first") { count() == 3 }

        // Nothing written: the safety net's round, 600 s on.
        let third = clock.now
        try await waitFor("waiting for a write again", seen: { "\(clock.wakeTimes)" }) { clock.wakeTimes == [third.addingTimeInterval(600)] }
        clock.advance(by: 599)
        #expect(count() == 3)
        clock.advance(by: 1)
        try await waitFor("the safety round") { count() == 4 }
    }
}
