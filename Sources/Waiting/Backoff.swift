/// Exponential backoff: the wait before retry `attempt` (0-based) doubles from ``first`` up to
/// ``maximum``, each shortened by a random fraction up to ``jitter`` so that many clients do
/// not retry in lockstep. Companions reconnecting and FHIR uploads retrying share it.
public struct Backoff: Sendable, Hashable {
    public var first: Duration
    public var maximum: Duration
    /// 0 (none) to 1.
    public var jitter: Double

    public init(first: Duration, maximum: Duration, jitter: Double = 0) {
        self.first = first
        self.maximum = maximum
        self.jitter = min(1, max(0, jitter))
    }

    /// The wait before retry number `attempt` (0-based); `random` in 0..<1 picks the jitter.
    public func delay(attempt: Int, random: Double = .random(in: 0..<1)) -> Duration {
        let doubled = first * (1 << min(max(0, attempt), 30))
        return min(doubled, maximum) * (1 - jitter * random)
    }
}
