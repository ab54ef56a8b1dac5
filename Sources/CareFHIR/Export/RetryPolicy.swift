import Waiting

/// How often and how long a request to a FHIR server is tried: exponential backoff, bounded
/// by a number of attempts and by a time budget.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (at least 1).
    public var attempts: Int
    /// The wait before the second attempt; each further wait doubles, up to `maximumDelay`.
    public var firstDelay: Duration
    public var maximumDelay: Duration
    /// No attempt starts later than this after the first one started.
    public var budget: Duration
    /// How long one request may take, connecting included.
    public var requestTimeout: Duration

    public init(
        attempts: Int = 5, firstDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8),
        budget: Duration = .seconds(60), requestTimeout: Duration = .seconds(30)
    ) {
        self.attempts = max(1, attempts)
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.budget = budget
        self.requestTimeout = requestTimeout
    }

    /// The wait after failed attempt `attempt` (1-based), or `nil` if no attempt follows:
    /// the attempts are used up, or the next one would start after the budget.
    public func delay(after attempt: Int, elapsed: Duration) -> Duration? {
        guard attempt < attempts else { return nil }
        let delay = Backoff(first: firstDelay, maximum: maximumDelay).delay(attempt: attempt - 1)
        return elapsed + delay <= budget ? delay : nil
    }
}
