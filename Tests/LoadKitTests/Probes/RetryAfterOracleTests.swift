import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// Retry-After waits are judged against the wait the fake meant (recorded from its plan, read by
/// its own code), so an SDK whose reading of the header is wrong fails, though its expected and
/// actual waits would have moved together had the oracle used the SDK's parser.
@Suite("Retry-After judged against what the fake meant, never the SDK's reading")
struct RetryAfterOracleTests {
    static let exactGap = "jitter.exact_retry_after_gap_errors == 0"

    static func run(_ name: String, defect: RetryAfterDefect? = nil) async throws -> ScenarioResult {
        try await PolicyBoundaryTests.run(name) { runner, _ in runner.seams.retryAfterDefect = defect }
    }

    @Test(
        "the real SDK waits every Retry-After exactly as meant",
        arguments: ["rate-limit-retry-after-fraction", "rate-limit-retry-after-http-date", "retry-after-spellings"])
    func correctPasses(name: String) async throws {
        let result = try await Self.run(name)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.exact_retry_after_waits"] ?? 0) >= 50)
    }

    @Test(
        "a client that truncates fractional seconds fails the exact gap verdict",
        arguments: ["rate-limit-retry-after-fraction", "retry-after-spellings"])
    func truncatedFractionsFail(name: String) async throws {
        let result = try await Self.run(name, defect: .truncatesFractions)
        #expect(PolicyBoundaryTests.failed(result).contains(Self.exactGap), "\(result.verdictLine)")
    }

    @Test(
        "a client that reads HTTP dates in local time fails where local time is far from UTC (both signs)",
        arguments: ["Pacific/Kiritimati", "Etc/GMT+12"], ["rate-limit-retry-after-http-date", "retry-after-spellings"])
    func localTimeDatesFail(zone: String, name: String) async throws {
        let result = try await Self.run(name, defect: .datesInZone(try #require(TimeZone(identifier: zone))))
        let failed = PolicyBoundaryTests.failed(result)
        // Ahead of UTC the date lies in the past (an immediate retry: the gap is wrong); behind it,
        // hours away (over maxRetryAfter: no retry, and the send fails).
        let expected = zone.hasPrefix("Pacific") ? Self.exactGap : "send.success_rate == 1"
        #expect(failed.contains(expected), "\(result.verdictLine)")
    }

    static let unrepresentable = """
        {"name": "float-unfriendly-retry-after", "transport": "inProcess", "seed": 5,
         "load": {"type": "closed", "concurrency": 20, "sends": 200},
         "plan": {"rules": [
           {"match": {"endpoint": "send", "attempt": 1, "probability": 0.5}, "action": {"type": "respond", "status": 429, "retryAfter": 32.1}},
           {"match": {"endpoint": "send", "attempt": 1}, "action": {"type": "respond", "status": 503, "retryAfter": 45.67}}]},
         "assertions": ["jitter.exact_retry_after_gap_errors == 0", "jitter.exact_retry_after_waits == 200",
                        "send.success_rate == 1"]}
        """

    @Test(
        "waits no 32-bit float holds (32.1 s, 45.67 s) are judged exactly: the real SDK passes, a truncating one fails")
    func unrepresentableWaits() async throws {
        let scenario = try makeScenario(Self.unrepresentable)
        let correct = try await ScenarioRunner(outputFolder: nil, runID: "test", progress: false).run(scenario)
        #expect(correct.passed, "\(correct.verdictLine)")
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.retryAfterDefect = .truncatesFractions
        let broken = try await runner.run(scenario)
        #expect(PolicyBoundaryTests.failed(broken).contains(Self.exactGap), "\(broken.verdictLine)")
    }
}
