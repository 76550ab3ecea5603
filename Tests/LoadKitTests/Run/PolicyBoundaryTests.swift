import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The committed scenarios at the policy's edges (`retries-disabled`, `retries-maximal`,
/// `timeout-boundary`), run quick: the correct SDK passes each, and an SDK that gets the edge wrong
/// (handed another policy or timeout than the scenario's, which the probes still expect) fails.
@Suite("policy boundaries: maxRetries 0 and 100, timeouts just below and above the server's delay")
struct PolicyBoundaryTests {
    /// The committed scenario, quick.
    static func scenario(_ name: String) throws -> Scenario {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/\(name).json")
        return try Scenario.load(file: file.standardizedFileURL.path).quickened()
    }

    static func run(_ name: String, _ configure: (inout ScenarioRunner, Scenario) -> Void = { _, _ in }) async throws
        -> ScenarioResult
    {
        let scenario = try Self.scenario(name)
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        let random = SeededRandomSource(seed: 53)
        runner.seams.entropy = { random.word() }
        configure(&runner, scenario)
        return try await runner.run(scenario)
    }

    static func failed(_ result: ScenarioResult) -> Set<String> {
        Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
    }

    /// `timeout-boundary` is judged 200 ms either side of a deadline; this process runs other tests
    /// that hold the cooperative pool's threads for longer than that, so the correct SDK's pass is
    /// shown where the scenario runs alone (the quick suite in CI, and under a CPU hog in
    /// `scripts/busy-ci.sh`), and the wrong deadlines below are wrong by margins no stall undoes.
    @Test("the correct SDK passes the boundary scenarios", arguments: ["retries-disabled", "retries-maximal"])
    func correctPasses(name: String) async throws {
        let result = try await Self.run(name)
        #expect(Self.failed(result).isEmpty, "\(result.verdictLine)")
    }

    /// The failed assertions of `name` run by an SDK handed the scenario's policy with `maxRetries`
    /// replaced (the probes still expect the scenario's).
    static func failures(_ name: String, maxRetries: Int) async throws -> (Set<String>, String) {
        let result = try await run(name) { runner, scenario in
            var wrong = scenario.client.scaledPolicy(scenario.timeScale)
            wrong.maxRetries = maxRetries
            runner.seams.policyOverride = wrong
        }
        return (failed(result), result.verdictLine)
    }

    @Test("an SDK that treats maxRetries 0 as the default retries, and fails retries-disabled")
    func zeroAsDefault() async throws {
        let (failures, line) = try await Self.failures("retries-disabled", maxRetries: RetryPolicy.default.maxRetries)
        #expect(failures.contains("attempts_per_send.max == 1"), "\(line)")
        #expect(failures.contains("jitter.samples == 0"), "\(line)")
    }

    @Test("an SDK that caps retries below the policy's maximum fails retries-maximal")
    func cappedRetries() async throws {
        let (failures, line) = try await Self.failures("retries-maximal", maxRetries: 10)
        #expect(failures.contains("attempts_per_send.max == 101"), "\(line)")
        #expect(failures.contains("send.ok >= 0.3 * send.sends"), "\(line)")
    }

    @Test("a deadline twice too long lets the late answers through; one half as long cuts off the timely ones")
    func wrongDeadlines() async throws {
        let scenario = try Self.scenario("timeout-boundary")
        let timeout = scenario.client.timeout.seconds * scenario.timeScale
        // 4 s against answers at 1.8 and 2.2 s: a 502 gets through unless every one of them meets
        // a stall of 1.8 s.
        let long = try await Self.run("timeout-boundary") { runner, _ in runner.seams.timeoutOverride = timeout * 2 }
        #expect(Self.failed(long).contains("attempts.errors.provider_error == 0"), "\(long.verdictLine)")
        // 1 s: the server has not answered yet when the deadline fires, however busy the machine.
        let short = try await Self.run("timeout-boundary") { runner, _ in runner.seams.timeoutOverride = timeout * 0.5 }
        #expect(
            Self.failed(short).contains("attempts.errors.service_unavailable >= 0.3 * send.sends"),
            "\(short.verdictLine)")
    }
}
