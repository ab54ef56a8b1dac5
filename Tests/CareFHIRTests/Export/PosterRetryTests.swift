import CareFHIR
import Foundation
import Synchronization
import Testing

/// A clock whose sleeps return at once and are recorded; time passes only by sleeping.
final class SleepRecorder: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex((now: Instant(offset: .zero), sleeps: [Duration]()))
    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = deadline
        }
    }
}

/// The poster's backoff on an injected clock, against a loopback port nobody listens on.
struct PosterRetryTests {
    let nobody = "http://127.0.0.1:1/fhir"

    @Test func anUnreachableServerIsTriedWithDoublingWaitsUntilTheAttemptsAreUsed() async throws {
        let clock = SleepRecorder()
        let poster = try TransactionPoster(url: nobody, policy: RetryPolicy(attempts: 5), clock: clock)
        await #expect(throws: FHIRExportError.unreachable(url: nobody, attempts: 5, detail: "connection refused")) {
            try await poster.post(Data("{}".utf8))
        }
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
    }

    @Test func theTimeBudgetEndsRetriesEarlier() async throws {
        let clock = SleepRecorder()
        let policy = RetryPolicy(attempts: 10, firstDelay: .seconds(1), budget: .seconds(5))
        let poster = try TransactionPoster(url: nobody, policy: policy, clock: clock)
        await #expect(throws: FHIRExportError.unreachable(url: nobody, attempts: 3, detail: "connection refused")) {
            try await poster.post(Data("{}".utf8))
        }
        #expect(clock.sleeps == [.seconds(1), .seconds(2)])
    }
}
