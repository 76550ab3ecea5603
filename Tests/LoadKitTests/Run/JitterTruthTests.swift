import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// The jitter verdicts must not trust the SDK's account of itself: each test below hands the real
/// probes an SDK that is wrong in a way its own reports hide (a wrong policy it reports faithfully,
/// an observer that reports a jittered wait while the client sleeps the whole cap, jitter applied
/// before the clip), and the correct SDK passes the same scenario with a seeded random source.
@Suite("jitter verdicts from the scenario's policy and the server's ledger")
struct JitterTruthTests {
    static let verdicts = [
        "jitter.ks_d < jitter.ks_critical_001", "jitter.cap_mismatches == 0", "jitter.realized_dependence < 4.42",
        "jitter.early_retries == 0",
    ]

    /// Half the attempts fail with 503; base 300 ms scaled to 150 ms, caps 150, 300, 600 ms: large
    /// against the overshoot and the stalls of a machine busy running the other tests (at caps of
    /// 60-240 ms, a full parallel test run once hid the sleeps-the-whole-cap client's dependence).
    static let brownout = """
        {"name": "truth", "timeScale": 0.5, "client": {"maxRetries": 3},
         "load": {"type": "closed", "concurrency": 32, "sends": 480},
         "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]},
         "assertions": \(verdicts)}
        """

    /// Every retry is in the clipped region: base 1 s > maxDelay 400 ms, so every cap is maxDelay.
    static let clipped = """
        {"name": "clipped", "timeScale": 0.01, "client": {"maxRetries": 4, "baseDelay": "1s", "maxDelay": "400ms"},
         "load": {"type": "closed", "concurrency": 16, "sends": 1000},
         "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]},
         "assertions": \(verdicts)}
        """

    static func scenario(_ json: String) throws -> Scenario {
        var scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        try scenario.validate()
        scenario.file = "test"
        return scenario
    }

    static func run(_ json: String, _ configure: (inout ScenarioRunner) -> Void = { _ in }) async throws
        -> ScenarioResult
    {
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        let random = SeededRandomSource(seed: 29)
        runner.seams.entropy = { random.word() }
        configure(&runner)
        return try await runner.run(scenario(json))
    }

    static func failed(_ result: ScenarioResult) -> Set<String> {
        Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
    }

    @Test("the expected cap comes from the scenario: doubling from baseDelay, clipped at maxDelay, time-scaled")
    func expectedCaps() {
        var client = ClientSettings()
        client.baseDelay = TimeSpan(seconds: 0.3)
        client.maxDelay = TimeSpan(seconds: 1)
        let caps = (0..<5).map { JitterProbe.expectedCap(client, afterAttempt: $0, timeScale: 0.01) }
        #expect(caps == [0.003, 0.006, 0.01, 0.01, 0.01])
        client.baseDelay = TimeSpan(seconds: 0)
        #expect(JitterProbe.expectedCap(client, afterAttempt: 3, timeScale: 1) == 0)
        #expect(JitterProbe.sameCap(0.1 + 0.2, 0.3))
        #expect(!JitterProbe.sameCap(0.006, 0.003))
    }

    @Test("realized dependence: near 0 when the excess is independent of the draw, large when it follows it")
    func dependence() {
        #expect(JitterProbe.ranks([3, 1, 2, 1]) == [4, 1.5, 3, 1.5])
        let random = SeededRandomSource(seed: 5)
        let independent = (0..<2000).map { _ in (position: random.next(), excess: 0.001 + 0.002 * random.next()) }
        #expect(JitterProbe.realizedDependence(independent) < 4.42)
        // Slept the whole cap while reporting u × cap: the excess is (1 − u) × cap plus overshoot.
        let fullCap = (0..<2000).map { _ -> (position: Double, excess: Double) in
            let u = random.next()
            return (u, (1 - u) * 0.003 + 0.002 * random.next())
        }
        #expect(JitterProbe.realizedDependence(fullCap) > 10)
        #expect(JitterProbe.realizedDependence(Array(fullCap.prefix(5))).isNaN)
    }

    @Test("the correct SDK passes every jitter verdict, in and beyond the clipped region")
    func correctPasses() async throws {
        for json in [Self.brownout, Self.clipped] {
            let result = try await Self.run(json)
            #expect(Self.failed(result).isEmpty, "\(result.verdictLine)")
            #expect((result.metrics["jitter.realized_samples"] ?? 0) > 300)
            #expect((result.metrics["jitter.cap_mismatches"] ?? 1) == 0)
        }
    }

    @Test("an exponent off by one, which the SDK reports faithfully, fails on the scenario's caps")
    func exponentOffByOne() async throws {
        // The policy as the run hands it to the SDK (on virtual time: the file's, unscaled).
        let scenario = try Self.scenario(Self.brownout).onVirtualTime()
        var wrong = scenario.client.scaledPolicy(scenario.timeScale)
        wrong.baseDelay *= 2  // base × 2^(n+1)
        let result = try await Self.run(Self.brownout) { $0.seams.policyOverride = wrong }
        let failures = Self.failed(result)
        #expect(failures.contains("jitter.cap_mismatches == 0"), "\(result.verdictLine)")
        #expect(failures.contains("jitter.ks_d < jitter.ks_critical_001"), "\(result.verdictLine)")
    }

    @Test("a client that reports a jittered wait but sleeps the whole cap fails on the realized waits")
    func sleepsSomethingElse() async throws {
        let reported = SeededRandomSource(seed: 41)
        let result = try await Self.run(Self.brownout) {
            $0.seams.drawDefect = { _ in 0.999_999 }
            $0.seams.observerWrapper = { JitterLyingObserver(base: $0, random: reported) }
        }
        let failures = Self.failed(result)
        // What it reports is perfectly uniform; what the server saw is not.
        #expect(!failures.contains("jitter.ks_d < jitter.ks_critical_001"), "\(result.verdictLine)")
        #expect(
            failures.contains("jitter.realized_dependence < 4.42"),
            "\(result.verdictLine): dependence \(result.metrics["jitter.realized_dependence"] ?? .nan) over \(result.metrics["jitter.realized_samples"] ?? 0) retries"
        )
    }

    @Test("a client that reports another cap than the one it uses is flagged")
    func lyingCap() async throws {
        let result = try await Self.run(Self.brownout) { $0.seams.observerWrapper = { CapLyingObserver(base: $0) } }
        #expect(Self.failed(result).contains("jitter.cap_mismatches == 0"), "\(result.verdictLine)")
    }

    @Test("jitter applied before the maxDelay clip fails in the clipped region")
    func jitterBeforeClip() async throws {
        // min(maxDelay, u × baseDelay × 2^n) with baseDelay = 2.5 × maxDelay: the draw lands on the
        // cap whenever u × 2.5 × 2^n ≥ 1, far more often than a uniform wait would.
        let result = try await Self.run(Self.clipped) { $0.seams.drawDefect = { min(1, $0 * 2.5) } }
        #expect(Self.failed(result).contains("jitter.ks_d < jitter.ks_critical_001"), "\(result.verdictLine)")
    }
}

/// Reports every jittered wait as a fresh uniform draw of its cap, whatever the client really does.
struct JitterLyingObserver: SendObserver {
    let base: any SendObserver
    let random: SeededRandomSource
    func record(_ event: SendEvent) {
        guard case .backoffScheduled(let operation, let key, let afterAttempt, _, let cause) = event,
            case .jitter(let cap) = cause
        else { return base.record(event) }
        base.record(
            .backoffScheduled(
                operation: operation, key: key, afterAttempt: afterAttempt, delay: random.next() * cap, cause: cause))
    }
}
