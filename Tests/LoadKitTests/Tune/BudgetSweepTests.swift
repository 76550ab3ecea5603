import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The verdicts a retry budget is judged by in a sweep, each with the deliberately broken budget
/// it exists to catch: one that is never charged (it cannot stop a storm) and one that never
/// refills (it starves retries a brownout needs).
@Suite("tune: retry budgets judged by the storm map and the brownout model")
struct BudgetSweepTests {
    /// Open load at 70 % of capacity (5 workers), capacity at 20 % from 5 s to 10 s; the aggressive policy
    /// (10 retries, 1 ms base delay, 200 ms timeout) without and with a 20 % budget.
    static let storm = """
        {"name": "s", "seeds": 1,
         "base": {"load": {"type": "open", "policyTime": true, "rate": 70, "duration": "30s", "maxInFlight": 20000},
                  "plan": {"capacity": {"workers": 5, "serviceTime": {"type": "exponential", "mean": "50ms", "cap": "500ms"}, "mode": "queue", "abandoned": "serve"}}},
         "environments": [{"name": "storm", "map": {"load": 0.7, "drop": "5s"}, "metastability": {"window": "20s"},
                           "capacity": {"workers": 5, "serviceTime": {"type": "exponential", "mean": "50ms", "cap": "500ms"}, "mode": "queue", "abandoned": "serve",
                                        "schedule": [{"from": "5s", "to": "10s", "factor": 0.2}]}}],
         "grid": {"points": [{"maxRetries": 10, "baseDelay": "1ms", "maxDelay": "10ms", "timeout": "200ms"}], "budget": ["none", "20%"]},
         "default": {"maxRetries": 10, "baseDelay": "1ms", "maxDelay": "10ms", "timeout": "200ms"}}
        """

    static func verdicts(_ report: TuneReport) -> [BudgetSetting: Bool?] {
        Dictionary(uniqueKeysWithValues: report.measured.map { ($0.policy.budget, $0.metastable) })
    }

    @Test(
        "a 20 % budget brings the storm policy back where it stays metastable without one; a budget never charged does not"
    )
    func budgetStopsTheStorm() async throws {
        let tune = try TuneTests.tune(Self.storm)
        let correct = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 2).run())
        #expect(Self.verdicts(correct) == [BudgetSetting.none: true, .percent(tenths: 200): false], "\(correct.text)")
        let refused = correct.measured.first { $0.policy.budget != .none }
        #expect(
            (refused?.amplification ?? 9) < (correct.measured.first { $0.policy.budget == .none }?.amplification ?? 0))
        #expect(correct.text.contains("metastability map"))
        var broken = TuneRunner(tune: tune, jobs: 2)
        broken.seams.budgetDefect = .neverCharged
        let report = TuneReport(tune: tune, cells: await broken.run())
        #expect(Self.verdicts(report) == [BudgetSetting.none: true, .percent(tenths: 200): true], "\(report.text)")
    }

    /// A brownout of 5 % against three retries with a 20 % budget: retries are 5 % of sends, the
    /// budget never binds, and the model's figures must hold.
    static let brownout = """
        {"name": "b", "seeds": 1,
         "base": {"load": {"type": "open", "policyTime": true, "rate": 100, "duration": "60s", "maxInFlight": 20000}},
         "environments": [{"name": "brownout-5", "rules": [{"match": {"endpoint": "send", "probability": 0.05}, "action": {"type": "respond", "status": 503}}]}],
         "grid": {"maxRetries": [3], "baseDelay": ["10ms"], "maxDelay": ["100ms"], "timeout": ["5s"], "budget": ["20%"]},
         "default": {"maxRetries": 3, "baseDelay": "10ms", "maxDelay": "100ms", "timeout": "5s", "budget": "20%"}}
        """

    @Test(
        "a budget that never binds agrees with the brownout model; a budget that never refills starves retries and fails it"
    )
    func budgetThatNeverRefills() async throws {
        let tune = try TuneTests.tune(Self.brownout)
        let correct = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 1).run())
        let check = try #require(correct.checks.first)
        #expect(check.agrees, "\(correct.sanityCSV)")
        var broken = TuneRunner(tune: tune, jobs: 1)
        broken.seams.budgetDefect = .neverRefilled
        let report = TuneReport(tune: tune, cells: await broken.run())
        let starved = try #require(report.checks.first)
        // Once the reserve of 100 retries is spent, a failed first attempt is final: success
        // falls towards 0.95 from 1 − 0.05⁴.
        #expect(!starved.agrees && starved.success.z < -4, "\(report.sanityCSV)")
        #expect(report.text.contains("SANITY CHECK FAILED"))
    }
}
