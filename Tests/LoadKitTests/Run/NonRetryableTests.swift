import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// Other 4xx answers, and 2xx answers the SDK cannot read, are never retried: the scenarios that
/// send them hold each send to one request on the server.
@Suite("non-retryable answers get one request each")
struct NonRetryableTests {
    static func run(_ name: String, broken: Bool) async throws -> ScenarioResult {
        try await runStandardQuick(name) { runner in
            if broken { runner.seams.transportWrapper = { RetryingNonRetryable(inner: $0) } }
        }
    }

    @Test(
        "the real SDK sends each non-retryable answer's request once",
        arguments: ["non-retryable-4xx", "malformed-2xx", "idempotency-key-reuse-conflict"])
    func correctPasses(name: String) async throws {
        let result = try await Self.run(name, broken: false)
        #expect(result.passed, "\(result.verdictLine)")
    }

    @Test(
        "an SDK that retries them fails on the server's count of requests",
        arguments: [
            ("non-retryable-4xx", ["attempts_per_send.max == 1", "load.amplification == 1"]),
            ("malformed-2xx", ["attempts_per_send.max == 1", "load.amplification == 1"]),
            // 409 idempotency_conflict: explicit keys, so the count is per logical send.
            ("idempotency-key-reuse-conflict", ["load.amplification == 1"]),
        ])
    func retryingFails(name: String, caughtBy: [String]) async throws {
        let result = try await Self.run(name, broken: true)
        let failed = failedAssertions(result)
        #expect(failed.isSuperset(of: caughtBy), "\(result.verdictLine)")
    }
}

/// A send that fails throws the code and status of the server's last answer: checked against the
/// plan's answers in the server's ledger.
@Suite("errors: a failed send throws what the server answered last")
struct ErrorVerdictTests {
    static func run(_ name: String, broken: Bool) async throws -> ScenarioResult {
        try await runStandardQuick(name) { runner in
            if broken { runner.seams.transportWrapper = { ErrorBodyBlind(inner: $0) } }
        }
    }

    @Test("the real SDK throws each answer's code and status", arguments: ["non-retryable-4xx", "brownout-503"])
    func correctPasses(name: String) async throws {
        let result = try await Self.run(name, broken: false)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["send.errors_checked"] ?? 0) >= 10)
        #expect(result.metrics["send.error_mismatches"] == 0)
    }

    @Test(
        "an SDK that ignores the error body throws other codes and fails",
        arguments: ["non-retryable-4xx", "brownout-503"])
    func blindFails(name: String) async throws {
        let result = try await Self.run(name, broken: true)
        let failed = failedAssertions(result)
        #expect(failed.contains("send.error_mismatches == 0"), "\(result.verdictLine)")
    }
}
