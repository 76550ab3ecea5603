import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// On virtual time the server's ledger judges timing exactly, without the SDK's account: a client
/// that reports the right waits but sleeps longer, or whose deadline fires late, passes every
/// verdict built on its reports and fails these; the real SDK passes them.
@Suite("exact timing verdicts from the server's ledger on virtual time")
struct ExactTimingTests {
    static let exact = [
        "jitter.exact_retry_after_gap_errors == 0", "jitter.exact_retry_after_waits >= 50",
        "jitter.exact_realized_ks_d < jitter.exact_realized_ks_critical_001", "jitter.exact_realized_samples >= 100",
        "attempts.exact_timeout_mismatches == 0", "attempts.exact_timeouts >= 20",
    ]
    /// The verdicts that trust the SDK's reports of its waits.
    static let reported = [
        "jitter.retry_after_mismatches == 0", "jitter.ks_d < jitter.ks_critical_001", "jitter.cap_mismatches == 0",
    ]

    static let scenario = """
        {"name": "exact", "seed": 5, "client": {"maxRetries": 3, "baseDelay": "200ms", "timeout": "1s"},
         "load": {"type": "open", "policyTime": true, "rate": 200, "duration": "3s", "maxInFlight": 5000},
         "plan": {"rules": [
           {"match": {"endpoint": "send", "probability": 0.2}, "action": {"type": "respond", "status": 429, "retryAfter": 0.5}},
           {"match": {"endpoint": "send", "probability": 0.25}, "action": {"type": "respond", "status": 503}},
           {"match": {"endpoint": "send", "probability": 0.05}, "action": {"type": "hang"}}]},
         "assertions": \(exact + reported)}
        """

    static func run(_ wrap: (@Sendable (any FrontmailScheduler) -> any FrontmailScheduler)? = nil) async throws
        -> ScenarioResult
    {
        var scenario = try JSONDecoder().decode(Scenario.self, from: Data(Self.scenario.utf8))
        try scenario.validate()
        scenario.file = "test"
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.clockWrapper = wrap
        return try await runner.run(scenario)
    }

    static func failed(_ result: ScenarioResult) -> Set<String> {
        Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
    }

    @Test("the real SDK: every Retry-After waited exactly, gaps uniform over the policy's caps, timeouts on time")
    func correctPasses() async throws {
        let result = try await Self.run()
        #expect(result.passed, "\(result.verdictLine)")
    }

    /// A broken client (its clock skewed below the SDK) and the exact verdict that must catch it.
    struct Broken: Sendable, CustomTestStringConvertible {
        var name: String
        var sleepFactor: Double
        var deadlineLag: Double
        var caughtBy: String
        var testDescription: String { name }
    }

    @Test(
        "a client that reports the right waits but sleeps or times out wrongly fails its exact verdict only",
        arguments: [
            Broken(
                name: "sleeps 10 % longer", sleepFactor: 1.1, deadlineLag: 0,
                caughtBy: "jitter.exact_retry_after_gap_errors == 0"),
            Broken(
                name: "sleeps twice its draw", sleepFactor: 2, deadlineLag: 0,
                caughtBy: "jitter.exact_realized_ks_d < jitter.exact_realized_ks_critical_001"),
            Broken(
                name: "deadline 5 ms late", sleepFactor: 1, deadlineLag: 0.005,
                caughtBy: "attempts.exact_timeout_mismatches == 0"),
        ])
    func brokenClients(_ broken: Broken) async throws {
        let result = try await Self.run {
            SkewedClock(base: $0, sleepFactor: broken.sleepFactor, deadlineLag: broken.deadlineLag)
        }
        let failures = Self.failed(result)
        #expect(failures.contains(broken.caughtBy), "\(result.verdictLine)")
        #expect(failures.isDisjoint(with: Self.reported), "\(result.verdictLine)")
    }
}

@Suite("server-side gaps are one client's waits only when the send's key is its own")
struct SharedKeyGapTests {
    @Test("with keys shared by ten sends, no gap is judged: their attempts meet at one virtual instant")
    func sharedKeys() async throws {
        var scenario = try JSONDecoder().decode(
            Scenario.self,
            from: Data(
                #"""
                {"name": "shared", "seed": 3, "client": {"maxRetries": 3, "baseDelay": "100ms", "explicitKeys": {"pool": 20, "sameBody": true}},
                 "load": {"type": "closed", "concurrency": 64, "sends": 400},
                 "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]},
                 "assertions": ["jitter.early_retries == 0", "jitter.realized_samples == 0", "jitter.exact_realized_samples == 0"]}
                """#.utf8))
        try scenario.validate()
        scenario.file = "test"
        let result = try await ScenarioRunner(outputFolder: nil, runID: "t", progress: false).run(scenario)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.samples"] ?? 0) > 50)
    }
}
