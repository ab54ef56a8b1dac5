import CareFHIR
import Foundation
import Testing
import TestSupport

/// The poster's backoff on an injected clock, against a loopback port nobody listens on.
struct PosterRetryTests {
    let nobody = "http://127.0.0.1:1/fhir"

    @Test func anUnreachableServerIsTriedWithDoublingWaitsUntilTheAttemptsAreUsed() async throws {
        let clock = ManualClock(sleepsPass: true)
        let poster = try TransactionPoster(url: nobody, policy: RetryPolicy(attempts: 5), clock: clock)
        await #expect(throws: FHIRExportError.unreachable(url: nobody, attempts: 5, detail: "connection refused")) {
            try await poster.post(Data("{}".utf8))
        }
        #expect(clock.requestedSleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
    }

    @Test func theTimeBudgetEndsRetriesEarlier() async throws {
        let clock = ManualClock(sleepsPass: true)
        let policy = RetryPolicy(attempts: 10, firstDelay: .seconds(1), budget: .seconds(5))
        let poster = try TransactionPoster(url: nobody, policy: policy, clock: clock)
        await #expect(throws: FHIRExportError.unreachable(url: nobody, attempts: 3, detail: "connection refused")) {
            try await poster.post(Data("{}".utf8))
        }
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2)])
    }
}
