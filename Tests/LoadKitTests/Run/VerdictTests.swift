import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Synchronization
import Testing

@testable import LoadKit

/// The suite must be able to fail: each verdict is fed the broken behaviour it exists to catch,
/// through injected randomness or a misbehaving transport wrapper (never a modified SDK).
@Suite("verdicts catch broken clients")
struct VerdictTests {
    static func scenario(_ json: String) throws -> Scenario {
        var scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        try scenario.validate()
        scenario.file = "test"
        return scenario
    }

    static let brownout = """
        {"name": "brownout", "timeScale": 0.001, "load": {"type": "closed", "concurrency": 64, "sends": 1500},
         "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]},
         "assertions": ["jitter.ks_d < jitter.ks_critical_001", "idempotency.duplicates == 0", "idempotency.lost == 0",
                        "idempotency.key_changes == 0", "idempotency.body_changes == 0", "jitter.retry_after_mismatches == 0"]}
        """

    private func run(
        _ json: String, entropy: (@Sendable () -> UInt64)? = nil, draw: (@Sendable (Double) -> Double)? = nil,
        wrap: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)? = nil
    ) async throws -> ScenarioResult {
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.entropy = entropy
        runner.seams.drawDefect = draw
        runner.seams.transportWrapper = wrap
        return try await runner.run(Self.scenario(json))
    }

    private func failed(_ result: ScenarioResult) -> Set<String> {
        Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
    }

    @Test("a broken draw on virtual time maps the scenario's seeded bits: the same seed gives the same waits")
    func brokenDrawIsSeeded() async throws {
        let halved: @Sendable (Double) -> Double = { $0 / 2 }
        let first = try await run(Self.brownout, draw: halved)
        let second = try await run(Self.brownout, draw: halved)
        let d = try #require(first.metrics[MetricKey.jitterKSD.text])
        #expect(d == second.metrics[MetricKey.jitterKSD.text])
        #expect(d > 0.4)  // every draw below half its cap
        #expect(failed(first).contains("jitter.ks_d < jitter.ks_critical_001"))
    }

    @Test("the real SDK passes every verdict")
    func correctClientPasses() async throws {
        // Seeded bits keep this deterministic; the SDK's draw and backoff formula are what is judged.
        let random = SeededRandomSource(seed: 11)
        let result = try await run(Self.brownout, entropy: { random.word() })
        let passed = result.passed
        #expect(passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.samples"] ?? 0) > 500)
    }

    @Test(
        "a backoff with no jitter, equal jitter or the cap applied after the jitter fails the KS check",
        arguments: ["none", "equal", "capAfter"])
    func brokenJitter(kind: String) async throws {
        let random = SeededRandomSource(seed: 3)
        let draw: @Sendable (Double) -> Double
        switch kind {
        case "none": draw = { _ in 0.999_999 }
        case "equal": draw = { 0.5 + $0 / 2 }
        default:
            // r × base × 2^n, capped afterwards: for the later attempts most draws land on the cap.
            draw = { min(1, $0 * 8) }
        }
        let result = try await run(Self.brownout, entropy: { random.word() }, draw: draw)
        let failures = failed(result)
        #expect(failures == ["jitter.ks_d < jitter.ks_critical_001"], "\(result.verdictLine)")
    }

    @Test("a client that sends one email twice (a second request under a new key) is flagged")
    func duplicateEffect() async throws {
        let result = try await run(Self.brownout, wrap: { DuplicatingTransport(base: $0) })
        let failures = failed(result)
        #expect(failures.contains("idempotency.duplicates == 0"))
        let duplicates = result.metrics["idempotency.duplicates"] ?? 0
        #expect(duplicates > 0)
    }

    @Test("a client that reports success without the server accepting anything is flagged as lost")
    func lostSend() async throws {
        let result = try await run(Self.brownout, wrap: { AnswerReplacingTransport.fabricating($0) })
        let failures = failed(result)
        #expect(failures.contains("idempotency.lost == 0"))
    }

    @Test("a client that changes the key between attempts is flagged")
    func changedKey() async throws {
        let result = try await run(Self.brownout, wrap: { KeyChangingTransport(base: $0) })
        let failures = failed(result)
        #expect(failures.contains("idempotency.key_changes == 0"))
    }

    @Test("a client that changes the body between attempts is flagged")
    func changedBody() async throws {
        let result = try await run(Self.brownout, wrap: { BodyChangingTransport(base: $0) })
        let failures = failed(result)
        #expect(failures.contains("idempotency.body_changes == 0"))
    }

    @Test("a client that ignores Retry-After is flagged; over-limit values that are retried are flagged")
    func ignoredRetryAfter() async throws {
        let storm = """
            {"name": "storm", "timeScale": 0.01, "load": {"type": "closed", "concurrency": 32, "sends": 300},
             "plan": {"rules": [
               {"match": {"endpoint": "send", "attempt": 1, "probability": 0.5}, "action": {"type": "respond", "status": 429, "retryAfter": 2}},
               {"match": {"endpoint": "send", "attempt": 1}, "action": {"type": "respond", "status": 429, "retryAfter": 3600}}]},
             "assertions": ["jitter.retry_after_mismatches == 0", "jitter.over_limit_retried == 0", "jitter.retry_after_waits >= 1"]}
            """
        let honest = try await run(storm)
        let honestPassed = honest.passed
        #expect(honestPassed, "\(honest.verdictLine)")
        let result = try await run(storm, wrap: { RetryAfterStrippingTransport(base: $0) })
        let failures = failed(result)
        #expect(failures.contains("jitter.retry_after_mismatches == 0"))
        #expect(failures.contains("jitter.over_limit_retried == 0"))
    }
}

/// A thread-safe seeded [0, 1) source for injected randomness.
final class SeededRandomSource: Sendable {
    private let state: Mutex<SeededRandom>
    init(seed: UInt64) { state = Mutex(SeededRandom(seed: seed)) }
    func next() -> Double { state.withLock { $0.unit() } }
    /// 64 random bits, for a client's injected entropy.
    func word() -> UInt64 { state.withLock { $0.next() } }
}
