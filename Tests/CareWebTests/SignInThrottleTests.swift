@testable import CareWeb
import Foundation
import Testing

/// Issue 53, item 3: wrong codes cost the guesser, not the person who shares its address.
struct SignInThrottleTests {
    @Test func oneMachineOrOneNetworkIsOneSource() {
        let loopback = ["127.0.0.1", "127.0.0.2", "127.255.1.9", "::1", "::ffff:127.0.0.1"].map(SignInThrottle.key)
        #expect(Set(loopback) == ["loopback"], "another 127.x address is no other guesser")
        #expect(SignInThrottle.key("2001:db8::1") == SignInThrottle.key("2001:DB8:0:0:ffff::2"), "one /64")
        #expect(SignInThrottle.key("2001:db8::1") != SignInThrottle.key("2001:db8:0:1::1"))
        #expect(SignInThrottle.key("192.168.1.10") != SignInThrottle.key("192.168.1.11"), "two devices of a home network")
        #expect(SignInThrottle.key("::ffff:192.168.1.10") == "192.168.1.10")
    }

    /// A guesser sending a wrong code every second for an hour gets five at once and one a
    /// minute after (64), and anyone on its address is never kept waiting over a minute.
    @Test func aGuesserIsSlowedAndNobodyWaitsOverAMinute() {
        let throttle = SignInThrottle(limit: 5, refill: 60)
        var now = Date(timeIntervalSince1970: 1_795_510_800)
        var tried = 0
        var longestWait: TimeInterval = 0
        for _ in 0..<3600 {
            if let until = throttle.refusedUntil("127.0.0.\(Int.random(in: 1...254))", at: now) {
                longestWait = max(longestWait, until.timeIntervalSince(now))
            } else {
                tried += 1
                _ = throttle.recordFailure("127.0.0.1", at: now)
            }
            now += 1
        }
        #expect(tried == 5 + 59, "five at once, then one a minute")
        #expect(longestWait <= 60 && longestWait > 50)
        // Left alone, the source has all its attempts back within five minutes.
        #expect(throttle.refusedUntil("::1", at: now + 300) == nil)
        #expect(throttle.recordFailure("::1", at: now + 300) == 4)
    }
}
