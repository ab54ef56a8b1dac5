import Foundation
import Synchronization

/// Bounds what the primary takes on that costs it dearly whatever its source: pairing
/// attempts (scrypt derivations each) and sessions offered through a relay (a connection and
/// a TLS handshake each). A sliding window of 60 s on the primary's clock: an attempt is
/// admitted if fewer than `limit` were in the 60 s before it; one refused does not count, so
/// a flood delays honest attempts by at most a minute after it stops.
final class AttemptsPerMinute: Sendable {
    /// Attempts admitted per minute.
    let limit: Int
    private let recent = Mutex<[Date]>([])

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether an attempt at `now` may be judged; counts it if so.
    func admit(at now: Date) -> Bool {
        recent.withLock { recent in
            recent.removeAll { now.timeIntervalSince($0) >= 60 }
            guard recent.count < limit else { return false }
            recent.append(now)
            return true
        }
    }
}
