import Foundation
import Testing

@testable import LoadKit

/// The runner end to end on small in-process scenarios: one judging loop for every experiment.
@Suite("scenario runner: experiments, judging, results")
struct ScenarioRunnerTests {
    @Test("assertions are judged in order against the metrics; the verdict line names the failures")
    func judging() throws {
        let assertions = try ["send.ok >= 2", "send.errors.timeout == 0", "send.success_rate > 0.9"].map {
            try Assertion(parsing: $0)
        }
        let checks = AssertionCheck.judge(assertions, ["send.ok": 2, "send.success_rate": 0.5])
        #expect(checks.map(\.passed) == [true, true, false])
        let result = ScenarioResult(
            scenario: try makeScenario(#"{"name": "j", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#),
            rows: [], metrics: [:], checks: checks, folder: nil, interrupted: false, elapsed: 0)
        #expect(!result.passed)
        #expect(result.verdictLine == "FAIL j: send.success_rate > 0.9 (actual 0.5)")
        var interrupted = result
        interrupted.checks = Array(checks.prefix(2))
        #expect(interrupted.passed)
        interrupted.interrupted = true
        #expect(!interrupted.passed && interrupted.verdictLine == "INTERRUPTED j")
    }

    @Test("a scenario over its wall budget says so beside its verdict and in its rows; one within it does not")
    func wallBudget() async throws {
        func run(budget: String) async throws -> ScenarioResult {
            let scenario = try makeScenario(
                #"{"name": "b", "load": {"type": "closed", "concurrency": 2, "sends": 20}, "wallBudget": \#(budget), "assertions": ["send.ok == 20"]}"#
            )
            return try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
        }
        let over = try await run(budget: "0.000001")
        let wall = try #require(over.wallSeconds)
        #expect(over.passed, "over budget is said, not a failure")
        #expect(over.verdictLine.hasPrefix("PASS b (1 assertions), over its wall budget ("))
        #expect(over.verdictLine.hasSuffix(" s > 1e-06 s)"))
        func row(_ result: ScenarioResult, _ name: String) -> Double? { result.rows.first { $0.key == name }?.value }
        #expect(row(over, "run.over_budget.value") == 1)
        #expect(row(over, "run.wall_budget.value") == 0.000001)
        #expect(row(over, "run.wall_elapsed.value") == wall)
        let within = try await run(budget: "3600")
        #expect(within.verdictLine == "PASS b (1 assertions)")
        #expect(row(within, "run.over_budget.value") == 0)
        let none = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(
            try makeScenario(#"{"name": "n", "load": {"type": "closed", "concurrency": 1, "sends": 2}}"#))
        #expect(row(none, "run.over_budget.value") == nil && row(none, "run.wall_elapsed.value") != nil)
    }

    @Test("a load runs through the in-process fake and files every result")
    func load() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let scenario = try makeScenario(
            """
            {"name": "small", "timeScale": 0.001, "client": {"timeout": "1000s"},
             "load": {"type": "closed", "concurrency": 4, "sends": 40},
             "plan": {"rules": [{"match": {"endpoint": "send", "attempt": 1, "everyNth": 2}, "action": {"type": "respond", "status": 503}}]},
             "assertions": ["send.ok == 40", "idempotency.duplicates == 0", "load.server_requests == 60"]}
            """)
        let result = try await ScenarioRunner(outputFolder: root, runID: "T", progress: false).run(scenario)
        #expect(result.passed, "\(result.verdictLine)")
        #expect(result.metrics["jitter.samples"] == 20)
        let names = try FileManager.default.contentsOfDirectory(atPath: result.folder!.path).sorted()
        #expect(
            names == [
                "assertions.csv", "history.csv", "jitter_histogram.csv", "jitter_samples.csv", "latency.hgrm",
                "latency_histogram.csv", "ledger.csv", "scenario.json", "summary.csv", "timeseries.csv",
            ])
        // On virtual time: policy time exactly (time scale 1), and the wall-clock rows last.
        #expect(
            result.rows.suffix(4).map(\.key) == [
                "run.elapsed.value", "run.time_scale.value", "run.wall_speed.value", "run.wall_elapsed.value",
            ])
        #expect(result.metrics["run.time_scale.value"] == nil)
        #expect(result.rows.first { $0.key == "run.time_scale.value" }?.value == 1)
        #expect(result.simulation != nil)
    }

    @Test("a cancellation experiment runs instead of a load and is judged the same way")
    func cancellation() async throws {
        let scenario = try makeScenario(
            """
            {"name": "cancel", "timeScale": 0.01,
             "cancellation": {"phases": ["inFlight", "backoff"], "samples": 5, "backgroundLoad": 8, "baseline": false},
             "assertions": ["cancellation.inFlight.load.aborted_ratio == 1", "cancellation.backoff.idle.attempts_after_cancel == 0",
                            "cancellation.live_requests_after == 0"]}
            """)
        let result = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
        #expect(result.passed, "\(result.verdictLine)")
        #expect(result.rows.suffix(2).map(\.key) == ["run.elapsed.value", "run.wall_elapsed.value"])
        #expect(result.rows.contains { $0.key == "cancellation.inFlight.load.p99" })
    }
}
