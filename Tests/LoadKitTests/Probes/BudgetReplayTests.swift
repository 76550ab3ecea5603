import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// The retry budget judged from the server's ledger: the documented bucket replayed per client
/// instance over the attempts the server saw. The real SDK agrees with it; every broken bucket
/// disagrees somewhere.
@Suite("retry budgets judged by the bucket replayed from the ledger")
struct BudgetReplayTests {
    static let violations = "retry.exact_budget_violations == 0"

    @Test(
        "the real SDK's budget agrees with the replay in every budget scenario",
        arguments: ["budget-quota-brownout", "budget-percent-outage"])
    func correctPasses(name: String) async throws {
        let result = try await PolicyBoundaryTests.run(name)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["retry.exact_budget_refusals"] ?? 0) >= 50)
    }

    @Test(
        "a broken bucket disagrees with the replay",
        arguments: [
            (BrokenBucket.neverCharged, "budget-quota-brownout"),
            (.neverRefilled, "budget-quota-brownout"),
            (.neverRefunds, "budget-quota-brownout"),
            (.chargesFirstAttempt, "budget-quota-brownout"),
            (.rewardsEverySuccess, "budget-quota-brownout"),
            (.timeoutAtRetryCost, "budget-quota-brownout"),
            (.sharedStatic, "budget-quota-brownout"),
            (.neverCharged, "budget-percent-outage"),
            (.chargesFirstAttempt, "budget-percent-outage"),
        ])
    func brokenFails(defect: BrokenBucket, name: String) async throws {
        let result = try await PolicyBoundaryTests.run(name) { runner, _ in runner.seams.budgetDefect = defect }
        #expect(PolicyBoundaryTests.failed(result).contains(Self.violations), "\(defect): \(result.verdictLine)")
    }

    @Test("the documented figures are the SDK's budgets' (a check of the docs, not an oracle's input)")
    func modelMatchesTheGuide() throws {
        let quota = try #require(BudgetReplay.Model(.quota))
        let standard = RetryBudget.standard
        #expect(
            quota
                == BudgetReplay.Model(
                    capacity: standard.capacity, retryCost: standard.retryCost, timeoutCost: standard.timeoutRetryCost,
                    reward: standard.successReward, refunds: standard.refundsRetriedSuccess))
        let twenty = try #require(BudgetReplay.Model(.percent(tenths: 200)))
        let fraction = RetryBudget.fraction(0.2)
        #expect(
            twenty
                == BudgetReplay.Model(
                    capacity: fraction.capacity, retryCost: fraction.retryCost, timeoutCost: fraction.timeoutRetryCost,
                    reward: fraction.successReward, refunds: fraction.refundsRetriedSuccess))
        #expect(BudgetReplay.Model(.none) == nil)
    }

    static func record(
        _ finished: Double, status: UInt16, action: LedgerAction = .fault(.respond), gone: Bool = false
    ) -> LedgerRecord {
        var record = LedgerRecord(arrival: finished, connection: 1, endpoint: .send, keyID: 1, attempt: 1)
        record.finished = finished
        record.status = status
        record.action = action
        record.clientGone = gone
        return record
    }

    @Test("a send's events: a decision after each retryable end, the refund of its last retry, none past maxRetries")
    func events() throws {
        let model = try #require(BudgetReplay.Model(.quota))
        let retried = BudgetReplay.events(
            [Self.record(1, status: 0, gone: true), Self.record(2, status: 503), Self.record(3, status: 202)],
            model: model, maxRetries: 3, limit: 60)
        #expect(retried.map(\.event) == [.retry(cost: 10), .retry(cost: 5), .credit(5)])
        #expect(retried.map(\.at) == [1, 2, 3])
        let refused = BudgetReplay.events(
            [Self.record(1, status: 202, action: .fault(.truncate)), Self.record(2, status: 429)], model: model,
            maxRetries: 3,
            limit: 60)
        #expect(refused.map(\.event) == [.retry(cost: 5), .refusal(cost: 5)])
        let exhausted = BudgetReplay.events(
            [Self.record(1, status: 503), Self.record(2, status: 503)], model: model, maxRetries: 1, limit: 60)
        #expect(exhausted.map(\.event) == [.retry(cost: 5)])
        var overLimit = Self.record(1, status: 429)
        overLimit.retryAfter = 61
        #expect(BudgetReplay.events([overLimit], model: model, maxRetries: 3, limit: 60).isEmpty)
        #expect(BudgetReplay.events([Self.record(1, status: 422)], model: model, maxRetries: 3, limit: 60).isEmpty)
        #expect(
            BudgetReplay.events([Self.record(1, status: 200)], model: model, maxRetries: 3, limit: 60).map(\.event) == [
                .credit(1)
            ])
    }
}
