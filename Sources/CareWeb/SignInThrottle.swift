import Foundation
import Synchronization

/// Wrong sign-in codes counted by where they come from: a source that has sent
/// ``WebConfiguration/signInAttemptsPerSource`` wrong codes within
/// ``WebConfiguration/signInWindow`` is refused without asking the store, so that one
/// device on the network cannot spend the attempts every browser shares (the store's lock of
/// sign-in codes, which never touches device pairing).
final class SignInThrottle: Sendable {
    private let failures = Mutex<[String: [Date]]>([:])
    private let limit: Int
    private let window: TimeInterval
    /// The most sources remembered at once: beyond it the oldest failures are forgotten first.
    static let sources = 1024

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// When `source` may try again, if it may not at `now`.
    func refusedUntil(_ source: String, at now: Date) -> Date? {
        failures.withLock { failures in
            let recent = (failures[source] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[source] = recent.isEmpty ? nil : recent
            return recent.count >= limit ? recent[recent.count - limit].addingTimeInterval(window) : nil
        }
    }

    /// Counts a wrong code from `source`; returns the attempts it has left in the window.
    func recordFailure(_ source: String, at now: Date) -> Int {
        failures.withLock { failures in
            var recent = (failures[source] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            failures[source] = recent
            if failures.count > Self.sources, let oldest = failures.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                failures[oldest] = nil
            }
            return max(0, limit - recent.count)
        }
    }
}
