import Foundation

/// How a send is retried: network errors, timeouts, 5xx and 429 are retried with exponential
/// backoff and full jitter; every other 4xx is not.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt (3 → at most 4 attempts).
    public var maxRetries: Int
    /// The backoff cap of the first retry, in seconds; it doubles for every further retry.
    public var baseDelay: TimeInterval
    /// The largest backoff cap, in seconds.
    public var maxDelay: TimeInterval
    /// The longest Retry-After that is waited for; a longer one throws at once (60 itself is retried).
    public var maxRetryAfter: TimeInterval
    /// A bound on retries shared by every request of one `Frontmail` (nil: none, the default).
    /// See ``RetryBudget``.
    public var budget: RetryBudget?

    public init(
        maxRetries: Int = 3, baseDelay: TimeInterval = 0.3, maxDelay: TimeInterval = 10,
        maxRetryAfter: TimeInterval = 60, budget: RetryBudget? = nil
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = baseDelay.isFinite ? max(0, baseDelay) : 0
        self.maxDelay = maxDelay.isNaN ? 0 : max(0, maxDelay)
        self.maxRetryAfter = maxRetryAfter.isNaN ? 0 : max(0, maxRetryAfter)
        self.budget = budget
    }

    /// The default: 3 retries, 0.3 s base delay, 10 s cap, Retry-After honoured up to 60 s, no budget.
    public static let `default` = RetryPolicy()

    /// One attempt, no retries.
    public static let disabled = RetryPolicy(maxRetries: 0)

    /// The most attempts one send makes.
    public var maxAttempts: Int { maxRetries &+ 1 }

    /// The backoff cap after failed attempt `attempt` (0-based): `min(maxDelay, baseDelay × 2^attempt)`.
    public func backoffCap(afterAttempt attempt: Int) -> TimeInterval {
        guard baseDelay > 0 else { return 0 }
        let exponent = Double(max(0, min(attempt, 1023)))
        return min(maxDelay, baseDelay * pow(2, exponent))
    }

    /// The full-jitter wait after failed attempt `attempt`: `random × cap`, with `random` in [0, 1).
    ///
    /// A cap of 0 gives 0 without drawing a random number.
    public func backoffDelay(afterAttempt attempt: Int, random: () -> Double) -> TimeInterval {
        let cap = backoffCap(afterAttempt: attempt)
        guard cap > 0 else { return 0 }
        let unit = random()
        guard unit.isFinite else { return 0 }
        return min(max(unit, 0), 1) * cap
    }
}
