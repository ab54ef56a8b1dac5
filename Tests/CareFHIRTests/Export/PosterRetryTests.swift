import CareFHIR
import Foundation
import Synchronization
import Testing
import Clocks

/// A clock whose sleeps return at once and are recorded; time passes only by sleeping.
final class SleepRecorder: WallClock {
    private let state = Mutex((now: Date(timeIntervalSince1970: 1_795_000_000), sleeps: [Duration]()))
    var now: Date { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(_ duration: Duration) async throws {
        state.withLock { state in
            state.sleeps.append(duration)
            state.now = state.now.addingTimeInterval(duration.inSeconds)
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
