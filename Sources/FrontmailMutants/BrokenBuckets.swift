import Foundation
import Frontmail
import Synchronization

/// How a deliberately wrong retry budget's bucket misbehaves. Each is a `RetryTokens` of its own,
/// handed to the client through `SendEnvironment.retryTokens`: the SDK's decisions stay its own.
package enum BrokenBucket: Sendable, Hashable {
    /// Retries take nothing from the bucket: it never empties.
    case neverCharged
    /// Successes add nothing to the bucket: once its first tokens are spent it stays empty.
    case neverRefilled
    /// A success after retries gives nothing back (its refund is forgotten).
    case neverRefunds
    /// Every first attempt takes a retry's cost too (what is there, up to that cost).
    case chargesFirstAttempt
    /// Every success adds the first-try reward, a success after retries on top of its refund.
    case rewardsEverySuccess
    /// A retry after a timeout costs what any retry does.
    case timeoutAtRetryCost
    /// One bucket in the process, shared by every client with the same budget.
    case sharedStatic

    /// The bucket a client with `budget` gets.
    package func tokens(_ budget: RetryBudget) -> any RetryTokens {
        guard self == .sharedStatic else { return MiscountingBucket(budget, self) }
        return Self.shared.withLock { buckets in
            if let bucket = buckets[budget] { return bucket }
            let bucket = RetryBucket(budget)
            buckets[budget] = bucket
            return bucket
        }
    }

    private static let shared = Mutex<[RetryBudget: RetryBucket]>([:])
}

/// A bucket that counts its tokens by the budget's rule except where `broken` says otherwise.
final class MiscountingBucket: RetryTokens {
    let budget: RetryBudget
    let broken: BrokenBucket
    private let tokens: Mutex<Int>

    init(_ budget: RetryBudget, _ broken: BrokenBucket) {
        self.budget = budget
        self.broken = broken
        tokens = Mutex(budget.capacity)
    }

    var level: Int { tokens.withLock { $0 } }

    func firstAttempt() {
        guard broken == .chargesFirstAttempt else { return }
        tokens.withLock { $0 -= min($0, budget.retryCost) }
    }

    func acquire(after error: FrontmailError) -> Int? {
        let cost = self.cost(after: error)
        if broken == .neverCharged { return cost }
        return tokens.withLock { level in
            guard level >= cost else { return nil }
            level -= cost
            return cost
        }
    }

    func cost(after error: FrontmailError) -> Int {
        error.code == .timeout && broken != .timeoutAtRetryCost ? budget.timeoutRetryCost : budget.retryCost
    }

    func succeeded(lastRetryCost: Int?) {
        var amount = budget.successReward
        if let lastRetryCost {
            amount = budget.refundsRetriedSuccess && broken != .neverRefunds ? lastRetryCost : 0
            if broken == .rewardsEverySuccess { amount += budget.successReward }
        }
        guard amount > 0, broken != .neverRefilled else { return }
        let capacity = budget.capacity
        tokens.withLock { level in
            level = amount >= capacity - level ? capacity : level + amount
        }
    }
}

/// Jitter broken through its bits: the client draws `r = bits >> 11 / 2^53`, so bits whose draw is
/// `mapping(r)` make it wait what a client drawing `mapping(r)` would.
package enum DrawMutant {
    /// The bits whose draw is `mapping` of the draw `bits` make (kept in [0, 1), to 2^-53).
    package static func bits(_ bits: UInt64, mapped mapping: (Double) -> Double) -> UInt64 {
        let mapped = mapping(Double(bits >> 11) * 0x1.0p-53)
        let unit = mapped.isNaN ? 0 : min(max(mapped, 0), 1 - 0x1.0p-53)
        return UInt64(unit * 0x1.0p53) << 11
    }

    /// Jitter bits made from `source`'s (the system's generator when nil), one word per draw, so a
    /// seeded client consumes its stream as before.
    package static func entropy(
        from source: (@Sendable () -> UInt64)?, mapped mapping: @escaping @Sendable (Double) -> Double
    ) -> @Sendable () -> UInt64 {
        {
            var system = SystemRandomNumberGenerator()
            return bits(source?() ?? system.next(), mapped: mapping)
        }
    }
}
