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
///   retry took instead.
///
/// ``standard`` is that quota (500 tokens, 5 per retry, 10 per retry after a timeout, 1 per
/// first-try success, refunds). ``fraction(_:burst:)`` is the ratio budget of Finagle, Envoy or the
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

    /// Negative figures are taken as 0; a cost of 0 makes retries free (the bucket never empties).
    public init(
        capacity: Int, retryCost: Int, timeoutRetryCost: Int, successReward: Int, refundsRetriedSuccess: Bool
    ) {
        self.capacity = max(0, capacity)
        self.retryCost = max(0, retryCost)
        self.timeoutRetryCost = max(0, timeoutRetryCost)
        self.successReward = max(0, successReward)
        self.refundsRetriedSuccess = refundsRetriedSuccess
    }

    /// The AWS SDKs' standard retry quota: 500 tokens, a retry costs 5 (10 after a timeout), a
    /// first-try success adds 1, a success after retries refunds its last retry.
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

/// The tokens of one client's budget, behind one small lock (the SDK's floor predates
/// `Synchronization`). Every operation is a few integer steps under it.
final class RetryBucket: Sendable {
    let budget: RetryBudget
    private let tokens: Lock<Int>
    private let defect: RetryBudgetDefect?

    init(_ budget: RetryBudget, defect: RetryBudgetDefect? = nil) {
        self.budget = budget
        self.defect = defect
        tokens = Lock(budget.capacity)
    }

    /// The bucket a client with `budget` keeps: its own, or (broken on purpose) the process's one.
    static func make(_ budget: RetryBudget, defect: RetryBudgetDefect?) -> RetryBucket {
        guard defect == .sharedStatic else { return RetryBucket(budget, defect: defect) }
        return shared.withLock { buckets in
            if let bucket = buckets[budget] { return bucket }
            let bucket = RetryBucket(budget, defect: defect)
            buckets[budget] = bucket
            return bucket
        }
    }

    private static let shared = Lock<[RetryBudget: RetryBucket]>([:])

    /// A first attempt is about to start: nothing happens, unless the bucket is broken on purpose
    /// to charge it (what is there, up to a retry's cost).
    func firstAttempt() {
        guard defect == .chargesFirstAttempt else { return }
        tokens.withLock { $0 -= min($0, budget.retryCost) }
    }

    /// The tokens in the bucket now.
    var level: Int { tokens.withLock { $0 } }

    /// Takes the cost of one retry after `error`; nil when the bucket holds too few tokens (no
    /// retry). Returns what was taken, which a later success may refund.
    func acquire(after error: FrontmailError) -> Int? {
        let cost = self.cost(after: error)
        if defect == .neverCharged { return cost }
        return tokens.withLock { level in
            guard level >= cost else { return nil }
            level -= cost
            return cost
        }
    }

    /// What a retry after `error` costs.
    func cost(after error: FrontmailError) -> Int {
        error.code == .timeout && defect != .timeoutAtRetryCost ? budget.timeoutRetryCost : budget.retryCost
    }

    /// A send succeeded: `lastRetryCost` is what its last retry took (nil on the first try).
    func succeeded(lastRetryCost: Int?) {
        var amount: Int
        if let lastRetryCost {
            guard budget.refundsRetriedSuccess || defect == .rewardsEverySuccess else { return }
            amount = budget.refundsRetriedSuccess && defect != .neverRefunds ? lastRetryCost : 0
            if defect == .rewardsEverySuccess { amount += budget.successReward }
        } else {
            amount = budget.successReward
        }
        guard amount > 0, defect != .neverRefilled else { return }
        let capacity = budget.capacity
        tokens.withLock { level in
            level = amount >= capacity - level ? capacity : level + amount
        }
    }
}
