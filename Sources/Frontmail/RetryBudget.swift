import Foundation

/// A client-wide bound on retries: a bucket of tokens that every send and status call of one
/// `Frontmail` instance shares. Off unless `RetryPolicy.budget` is set.
///
/// Per-request limits (`maxRetries`) cannot stop a retry storm: when most attempts fail, every send
/// still makes all its attempts, so an open-loop load on a struggling server is multiplied by up to
/// `maxRetries + 1`. A budget makes retries cost tokens that only successes earn back, so when
/// failures outnumber successes the bucket empties and the client stops retrying until the server
/// answers again.
///
/// The design is the retry quota of the AWS SDKs' standard mode:
/// - the bucket starts full, at `capacity` tokens;
/// - a retry takes `retryCost` tokens (`timeoutRetryCost` after a timeout); with fewer tokens left
///   the retry is not made and the send throws the error of its last attempt;
/// - a send that succeeds on its first attempt adds `successReward` tokens, up to `capacity`;
/// - with `refundsRetriedSuccess`, a send that succeeds after retrying gives back what its last
///   retry took instead;
/// - a retry after an attempt that never reached the server (the connection was refused, the host
///   not found, the device offline) takes nothing: the budget counts only failures the server could
///   have caused, as gRFC A6 counts them. With `chargesUnsentAttempts` (the AWS SDKs' reading)
///   every retry costs. Measured (docs/tune.md, "What a budget counts"): charging them lost sends
///   in every refused outage and stopped no retry storm the free reading did not.
///
/// ``standard`` is that quota's figures (500 tokens, 5 per retry, 10 per retry after a timeout, 1
/// per first-try success, refunds), unsent attempts free. ``fraction(_:burst:)`` is the ratio budget of Finagle, Envoy or the
/// SRE book: on average at most that fraction of successful sends' worth of retries, plus a reserve.
public struct RetryBudget: Sendable, Hashable {
    /// The bucket's size and its starting level, in tokens.
    public var capacity: Int
    /// Tokens one retry takes.
    public var retryCost: Int
    /// Tokens one retry after a timeout takes.
    public var timeoutRetryCost: Int
    /// Tokens a first-try success adds.
    public var successReward: Int
    /// A success after retries gives back the cost of its last retry (instead of `successReward`).
    public var refundsRetriedSuccess: Bool
    /// A retry after an attempt that never reached the server costs tokens too (true: AWS's
    /// reading), or nothing (false, the default: gRFC A6's).
    public var chargesUnsentAttempts: Bool

    /// Negative figures are taken as 0; a cost of 0 makes retries free (the bucket never empties).
    public init(
        capacity: Int, retryCost: Int, timeoutRetryCost: Int, successReward: Int, refundsRetriedSuccess: Bool,
        chargesUnsentAttempts: Bool = false
    ) {
        self.capacity = max(0, capacity)
        self.retryCost = max(0, retryCost)
        self.timeoutRetryCost = max(0, timeoutRetryCost)
        self.successReward = max(0, successReward)
        self.refundsRetriedSuccess = refundsRetriedSuccess
        self.chargesUnsentAttempts = chargesUnsentAttempts
    }

    /// The AWS SDKs' standard retry quota: 500 tokens, a retry costs 5 (10 after a timeout), a
    /// first-try success adds 1, a success after retries refunds its last retry; a retry after an
    /// attempt that never reached the server costs nothing.
    public static let standard = RetryBudget(
        capacity: 500, retryCost: 5, timeoutRetryCost: 10, successReward: 1, refundsRetriedSuccess: true)

    /// Retries limited to `fraction` of first-try successes (0.2: one retry per five successes),
    /// with a reserve of `burst` retries for a client that has not sent yet. In thousandths: a retry
    /// costs 1,000 tokens and a first-try success adds `fraction × 1,000`, rounded.
    public static func fraction(_ fraction: Double, burst: Int = 100) -> RetryBudget {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1_000) : 0
        let reserve = min(max(burst, 0), Int.max / 1_000)
        return RetryBudget(
            capacity: reserve * 1_000, retryCost: 1_000, timeoutRetryCost: 1_000,
            successReward: Int((clamped * 1_000).rounded()), refundsRetriedSuccess: false)
    }
}

/// The tokens of a retry budget, as the client asks for them: a first attempt starts, a retry
/// wants its cost, a send succeeded. The client makes each decision from the answers.
package protocol RetryTokens: AnyObject, Sendable {
    /// The tokens in the bucket now.
    var level: Int { get }
    /// A send's (or status read's) first attempt is about to start.
    func firstAttempt()
    /// Takes the cost of one retry after `error`; nil when the bucket holds too few tokens (no
    /// retry). Returns what was taken, which a later success may refund.
    func acquire(after error: FrontmailError) -> Int?
    /// What a retry after `error` costs.
    func cost(after error: FrontmailError) -> Int
    /// A send succeeded: `lastRetryCost` is what its last retry took (nil on the first try).
    func succeeded(lastRetryCost: Int?)
}

/// The tokens of one client's budget, behind one small lock (the SDK's floor predates
/// `Synchronization`). Every operation is a few integer steps under it.
package final class RetryBucket: RetryTokens {
    package let budget: RetryBudget
    private let tokens: Lock<Int>

    package init(_ budget: RetryBudget) {
        self.budget = budget
        tokens = Lock(budget.capacity)
    }

    /// A first attempt takes nothing from the standard quota.
    package func firstAttempt() {}

    package var level: Int { tokens.withLock { $0 } }

    package func acquire(after error: FrontmailError) -> Int? {
        let cost = self.cost(after: error)
        return tokens.withLock { level in
            guard level >= cost else { return nil }
            level -= cost
            return cost
        }
    }

    package func cost(after error: FrontmailError) -> Int {
        if !budget.chargesUnsentAttempts, error.neverReachedServer { return 0 }
        return error.code == .timeout ? budget.timeoutRetryCost : budget.retryCost
    }

    package func succeeded(lastRetryCost: Int?) {
        let amount: Int
        if let lastRetryCost {
            guard budget.refundsRetriedSuccess else { return }
            amount = lastRetryCost
        } else {
            amount = budget.successReward
        }
        guard amount > 0 else { return }
        let capacity = budget.capacity
        tokens.withLock { level in
            level = amount >= capacity - level ? capacity : level + amount
        }
    }
}
