import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// The verdicts read from the ledger against the file alone (`attempts.over_limit`,
/// `attempts.after_final_answer`, `attempts.gave_up_early`, `jitter.exact_over_cap`): each fails
/// the broken client it exists for and passes the SDK as it is; and the plans explore found them
/// wrong on (a refuse window, a plan's own 404 to a status read) leave a correct SDK alone.
@Suite("ledger verdicts: over the limit, after a final answer, giving up early, over the cap")
struct LedgerVerdictTests {
    static func run(_ json: String, broken: String? = nil) async throws -> ScenarioResult {
        let scenario = try Scenario.load(data: Data(json.utf8), file: "ledger-verdict.json")
        var runner = ScenarioRunner(outputFolder: nil, runID: "T", progress: false)
        if let broken { try #require(BrokenClient.named(broken)).apply(to: &runner.seams) }
        return try await runner.run(scenario)
    }

    static let failing503 = """
        {"name": "always-503", "client": {"maxRetries": 2, "baseDelay": "100ms"},
         "load": {"type": "closed", "concurrency": 4, "sends": 20},
         "plan": {"rules": [{"match": {"endpoint": "send"}, "action": {"type": "respond", "status": 503}}]},
         "assertions": ["attempts.over_limit == 0", "attempts.gave_up_early == 0", "jitter.exact_over_cap == 0",
                        "attempts.after_final_answer == 0", "jitter.exact_realized_samples == 40"]}
        """

    static let final400 = """
        {"name": "final-400", "load": {"type": "closed", "concurrency": 4, "sends": 20},
         "plan": {"rules": [{"match": {"endpoint": "send", "attempt": 1}, "action": {"type": "respond", "status": 400}}]},
         "assertions": ["attempts.after_final_answer == 0", "send.errors.bad_request == 20"]}
        """

    @Test("the SDK as it is passes each of them")
    func correctPasses() async throws {
        for json in [Self.failing503, Self.final400] {
            let result = try await Self.run(json)
            let passed = result.passed
            #expect(passed, "\(result.verdictLine)")
        }
    }

    @Test(
        "each broken client fails the verdict made for it",
        arguments: [
            ("one-retry-extra", "attempts.over_limit == 0"), ("one-retry-short", "attempts.gave_up_early == 0"),
            ("doubled-backoff", "jitter.exact_over_cap == 0"),
        ])
    func brokenFails(broken: String, assertion: String) async throws {
        let result = try await Self.run(Self.failing503, broken: broken)
        #expect(failedAssertions(result).contains(assertion), "\(result.verdictLine)")
    }

    @Test("a client that retries a 400 fails attempts.after_final_answer")
    func retryAfterFinal() async throws {
        let result = try await Self.run(Self.final400, broken: "retries-final-answers")
        #expect(failedAssertions(result).contains("attempts.after_final_answer == 0"), "\(result.verdictLine)")
    }

    @Test("a refuse window, a budget, explicit keys and a plan's own 404 to status reads leave the SDK as it is alone")
    func hiddenAttemptsPass() async throws {
        let refused = """
            {"name": "refused", "client": {"maxRetries": 3, "baseDelay": "300ms", "budget": "quota"},
             "load": {"type": "closed", "concurrency": 8, "sends": 40},
             "plan": {"rules": [{"match": {"from": "100ms", "to": "900ms"}, "action": {"type": "refuse"}},
                                {"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503, "retryAfter": {"httpDateIn": "70s"}}},
                                {"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]},
             "assertions": ["jitter.exact_over_cap == 0", "jitter.over_limit_retried == 0", "send.error_mismatches == 0",
                            "jitter.exact_retry_after_gap_errors == 0"]}
            """
        let statusPlan404 = """
            {"name": "status-404", "client": {"maxRetries": 0, "explicitKeys": {"pool": 3}},
             "load": {"type": "closed", "concurrency": 2, "sends": 10}, "status": {"reads": 1, "unknown": 0.5},
             "plan": {"rules": [{"match": {"endpoint": "status"}, "action": {"type": "respond", "status": 404}}]},
             "assertions": ["status.unknown_misreported == 0", "jitter.over_limit_retried == 0"]}
            """
        for json in [refused, statusPlan404] {
            let result = try await Self.run(json)
            let passed = result.passed
            #expect(passed, "\(result.verdictLine)")
        }
    }
}
