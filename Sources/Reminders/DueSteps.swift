import Foundation
import Logging
import Clocks
import Waiting

/// Runs `step` at the instant it last asked for (at once the first time), and sooner when
/// `wake` is signalled, until cancelled. `step` takes the instant it runs at and returns
/// the next it wants, or `nil` for none (it then runs again within the hour, or when woken).
/// A step that fails is logged and tried again after `retryDelay`.
func runStepsAsDue(
    what: String, clock: any WallClock, wake: WakeSignal, retryDelay: Duration, logger: Logger,
    step: (Date) async throws -> Date?
) async {
    var next: Date? = clock.now
    while !Task.isCancelled {
        let delay = next.map { max(0, $0.timeIntervalSince(clock.now)) } ?? 3600
        if delay > 0 { await wake.wait(timeout: .milliseconds(Int64(min(delay, 3600) * 1000)), clock: clock) }
        do {
            next = try await step(clock.now)
        } catch {
            guard !Task.isCancelled else { return }  // stopping
            logger.error("\(what): a step failed; trying again", metadata: [
                "retryIn": "\(retryDelay)", "error": "\(error)",
            ])
            next = clock.now.addingTimeInterval(Double(retryDelay.components.seconds))
        }
    }
}
