import Foundation
import Synchronization

/// Wrong sign-in codes counted by where they come from, so that one guesser cannot spend the
/// attempts every browser shares (the store locks the open sign-in codes after
/// `DeviceAccess.signInAttempts` wrong ones, which is what keeps guessing hard).
///
/// A source may send ``WebConfiguration/signInAttemptsPerSource`` wrong codes at once and
/// regains one every ``WebConfiguration/signInRefill``; while it has none left it is refused
/// without asking the store, for at most that long. The person with the right code may share
/// the guesser's source (on the default loopback binding every browser of the machine does),
/// so the wait must stay short: a guesser is slowed, the person waits a minute at most.
final class SignInThrottle: Sendable {
    private struct Bucket {
        var attempts: Double
        var at: Date
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let limit: Int
    private let refill: TimeInterval
    /// The most sources remembered at once: beyond it the one that failed longest ago is
    /// forgotten first.
    static let sources = 1024

    init(limit: Int, refill: TimeInterval) {
        self.limit = limit
        self.refill = refill
    }

    /// When `source` may try again, if it may not at `now`.
    func refusedUntil(_ source: String, at now: Date) -> Date? {
        buckets.withLock { buckets in
            let key = Self.key(source)
            guard let bucket = buckets[key].map({ filled($0, at: now) }) else { return nil }
            if bucket.attempts >= Double(limit) { buckets[key] = nil }
            return bucket.attempts >= 1 ? nil : now.addingTimeInterval((1 - bucket.attempts) * refill)
        }
    }

    /// Counts a wrong code from `source`; returns the attempts it has left now.
    func recordFailure(_ source: String, at now: Date) -> Int {
        buckets.withLock { buckets in
            let key = Self.key(source)
            var bucket = buckets[key].map { filled($0, at: now) } ?? Bucket(attempts: Double(limit), at: now)
            bucket.attempts = max(0, bucket.attempts - 1)
            buckets[key] = bucket
            if buckets.count > Self.sources, let oldest = buckets.min(by: { $0.value.at < $1.value.at })?.key {
                buckets[oldest] = nil
            }
            return Int(bucket.attempts.rounded(.down))
        }
    }

    /// `bucket` with the attempts regained since it was last counted.
    private func filled(_ bucket: Bucket, at now: Date) -> Bucket {
        let regained = max(0, now.timeIntervalSince(bucket.at)) / refill
        return Bucket(attempts: min(Double(limit), bucket.attempts + regained), at: now)
    }

    /// What one guesser is known by: every loopback address is this machine (127.0.0.2 is no
    /// other guesser than 127.0.0.1), an IPv6 address its /64 (what one network is given),
    /// an IPv4-mapped address its IPv4 address.
    static func key(_ address: String) -> String {
        var address = address.lowercased()
        if address.hasPrefix("::ffff:"), address.contains(".") { address.removeFirst("::ffff:".count) }
        if address.hasPrefix("127.") || address == "::1" { return "loopback" }
        guard address.contains(":") else { return address }
        var groups = [UInt16](repeating: 0, count: 8)
        guard inet_pton(AF_INET6, address, &groups) == 1 else { return address }
        return groups.prefix(4).map { String(UInt16(bigEndian: $0), radix: 16) }.joined(separator: ":") + "::/64"
    }
}
