import FakeFrontmail
import Foundation
import Frontmail
import Simulator
import Testing

@testable import LoadKit

/// In-process scenarios on virtual time: exact policy time, the same bytes in every run, and
/// verdicts that a scheduler advancing before quiescence would get wrong.
@Suite("scenarios on virtual time")
struct VirtualTimeTests {
    /// Connections refused for the first second of an open load of 100 sends/s over 2 s, no
    /// retries: exactly the 100 sends due inside the window fail.
    static let outage = """
        {"name": "outage-exact", "timeScale": 0.01, "client": {"maxRetries": 0},
         "load": {"type": "open", "policyTime": true, "rate": 100, "duration": "2s", "maxInFlight": 1000},
         "plan": {"rules": [{"match": {"to": "1s"}, "action": {"type": "refuse"}}]},
         "assertions": ["send.success_rate == 0.5", "send.sends == 200"]}
        """

    /// Brownout with retries, jitter and timeouts racing service times: every source of time and
    /// randomness of a run.
    static let busy = """
        {"name": "busy", "seed": 11, "client": {"maxRetries": 3, "baseDelay": "100ms", "timeout": "300ms"},
         "load": {"type": "open", "policyTime": true, "rate": 400, "duration": "3s", "maxInFlight": 5000},
         "plan": {"rules": [
           {"match": {"endpoint": "send", "probability": 0.3}, "action": {"type": "respond", "status": 503}},
           {"action": {"type": "delay", "delay": {"type": "logNormal", "median": "100ms", "sigma": 0.8, "cap": "2s"}}}]},
         "assertions": ["idempotency.duplicates == 0"]}
        """

    static func scenario(_ json: String) throws -> Scenario {
        var scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        try scenario.validate()
        scenario.file = "test"
        return scenario
    }

    @Test("in process the clock is virtual by default; sockets, cancellation and calibration keep the real one")
    func clockChoice() throws {
        #expect(try Self.scenario(Self.outage).clock == .virtual)
        #expect(try Self.scenario(#"{"name": "s", "transport": "socket", "load": {"sends": 1}}"#).clock == .real)
        #expect(try Self.scenario(#"{"name": "s", "clock": "real", "load": {"sends": 1}}"#).clock == .real)
        for (json, reason) in [
            (
                #"{"name": "s", "transport": "socket", "clock": "virtual", "load": {"sends": 1}}"#,
                "needs the inProcess transport"
            ),
            (#"{"name": "s", "clock": "virtual", "cancellation": {}}"#, "cannot measure cancellation latency"),
            (
                #"{"name": "s", "clock": "virtual", "load": {"type": "open", "duration": "1s", "rate": {"fraction": 0.5, "of": "inProcessCore"}}}"#,
                "cannot calibrate"
            ),
            (#"{"name": "s", "clock": "sundial", "load": {"sends": 1}}"#, "'sundial' is not one of virtual, real"),
            (
                #"{"name": "s", "load": {"type": "closed", "duration": "10s"}}"#,
                "a closed load on virtual time needs sends"
            ),
        ] {
            #expect(throws: InputError.self) { try Self.scenario(json) }
            do {
                _ = try Self.scenario(json)
            } catch {
                #expect("\(error)".contains("clock") || "\(error)".contains("load.sends"), "\(error)")
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
    }

    @Test("on virtual time a load written in real time becomes the policy-time load it emulated")
    func timeScaleHasNoEffect() throws {
        var scenario = try Self.scenario(
            #"{"name": "s", "timeScale": 0.01, "load": {"type": "open", "rate": 1000, "duration": "2s"}}"#)
        scenario = scenario.onVirtualTime()
        #expect(scenario.timeScale == 1 && scenario.declaredTimeScale == 0.01)
        #expect(scenario.load.policyTime && scenario.load.rate == 10 && scenario.load.duration?.seconds == 200)
        #expect(scenario.onVirtualTime() == scenario)
        let real = try Self.scenario(#"{"name": "s", "clock": "real", "timeScale": 0.01, "load": {"sends": 1}}"#)
        #expect(real.onVirtualTime() == real)
    }

    @Test("the outage's failures are exactly the sends due inside the window; early timers let some through")
    func outageNeedsQuiescence() async throws {
        let runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        let exact = try await runner.run(Self.scenario(Self.outage))
        #expect(exact.passed, "\(exact.verdictLine)")
        var broken = runner
        broken.seams.simulationAdvanceEvery = 1
        let early = try await broken.run(Self.scenario(Self.outage))
        #expect(!early.passed, "a scheduler that fires timers before quiescence passed: \(early.verdictLine)")
        #expect((early.metrics["send.success_rate"] ?? 0) > 0.5)
    }

    @Test("the same scenario and seed give the same history, ledger, time series and summary, byte for byte")
    func sameBytes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("virtual-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var folders: [URL] = []
        for run in 0..<2 {
            let runner = ScenarioRunner(
                outputFolder: root.appendingPathComponent("\(run)"), runID: "same", progress: false)
            let result = try await runner.run(Self.scenario(Self.busy))
            #expect(result.passed, "\(result.verdictLine)")
            #expect((result.metrics["send.failed"] ?? 0) > 0 && (result.metrics["jitter.samples"] ?? 0) > 100)
            folders.append(try #require(result.folder))
        }
        for file in ["history.csv", "ledger.csv", "timeseries.csv", "jitter_samples.csv", "latency.hgrm"] {
            let first = try Data(contentsOf: folders[0].appendingPathComponent(file))
            let second = try Data(contentsOf: folders[1].appendingPathComponent(file))
            #expect(first == second, "\(file) differs between two runs")
        }
        // The summary too, but for its wall-clock rows.
        let summaries = try folders.map { folder in
            try String(contentsOf: folder.appendingPathComponent("summary.csv"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.contains(",run,wall_") }
        }
        #expect(summaries[0] == summaries[1])
        #expect(summaries[0].count > 50)
    }

    @Test("a load that renders no files (explore's, tune's) gives the same figures and rows as one that does")
    func figuresWithoutFiles() async throws {
        let scenario = try Self.scenario(Self.busy).onVirtualTime()
        var measurements: [LoadKit.Measurement] = []
        for renders in [true, false] {
            var experiment = LoadExperiment(scenario: scenario, progress: false)
            experiment.rendersFiles = renders
            measurements.append(try await experiment.run())
        }
        #expect(measurements[0].files[.timeseries] != nil && measurements[0].files[.jitterSamples] != nil)
        #expect(measurements[1].files.isEmpty, "\(measurements[1].files.keys)")
        let wall = { (rows: [SummaryRow]) in rows.filter { !$0.metric.hasPrefix("wall_") && $0.probe != "run" } }
        #expect(wall(measurements[0].rows) == wall(measurements[1].rows))
        let figures = measurements.map { $0.metrics.filter { !$0.key.hasPrefix("run.") } }
        #expect(figures[0] == figures[1])
        #expect((figures[0]["send.failed"] ?? 0) > 0)
    }

    @Test("random and pct schedules: the same seed gives the same ledger byte for byte, another order than fifo's")
    func scheduledBytes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func ledger(_ schedule: Schedule.Policy, run: Int) async throws -> (Data, ScenarioResult) {
            var runner = ScenarioRunner(
                outputFolder: root.appendingPathComponent("\(run)"), runID: "schedule", progress: false)
            runner.schedule = schedule
            let result = try await runner.run(Self.scenario(Self.busy))
            #expect(result.passed, "\(result.verdictLine)")
            let folder = try #require(result.folder)
            return (try Data(contentsOf: folder.appendingPathComponent("ledger.csv")), result)
        }
        let fifo = try await ledger(.fifo, run: 0).0
        var run = 1
        for schedule in [Schedule.Policy.random, .pct(depth: 3)] {
            let (first, result) = try await ledger(schedule, run: run)
            let (second, _) = try await ledger(schedule, run: run + 1)
            run += 2
            #expect(first == second, "\(schedule): two runs differ")
            #expect(first != fifo, "\(schedule): the same order as fifo")
            let replay = try #require(result.replayCommand(quick: false))
            #expect(replay.contains("--seed 11 --schedule \(Schedule.spelled(schedule))"), "\(replay)")
        }
    }
}
