import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Simulator

/// Runs scenarios: the scenario's experiment measures, its assertions judge the metrics, and the
/// results writer files everything under `outputFolder`.
public struct ScenarioRunner: Sendable {
    public var outputFolder: URL?
    public var runID: String
    public var progress: Bool
    /// The suite's own tests' seeded or broken behaviour (nil fields in every run of the tool).
    var seams = TestSeams()
    /// The deliberately broken client this runner runs instead of the SDK as it ships (`run
    /// --broken`), nil for the SDK.
    package private(set) var broken: BrokenClient?
    /// Keep the trace of this send (its number in the run) in the result (`--trace-send`).
    public var traceSend: Int?
    /// On virtual time: the order of the jobs ready at once (`--schedule`).
    public var schedule: Schedule.Policy = .fifo
    /// Seconds a run on the real clock may take before it is a hang (nil: `HangWatch.limit`).
    var hangLimit: Double?

    public init(outputFolder: URL?, runID: String, progress: Bool) {
        self.outputFolder = outputFolder
        self.runID = runID
        self.progress = progress
    }

    /// Runs `client` instead of the SDK as it ships: its breakage on this runner's seams.
    package mutating func run(broken client: BrokenClient) {
        broken = client
        client.apply(to: &seams)
    }

    public func run(_ scenario: Scenario) async throws -> ScenarioResult {
        let started = ContinuousClock.now
        let scenario = scenario.onVirtualTime()
        var measurement: Measurement
        if scenario.clock == .virtual {
            measurement = try await measure(scenario)
        } else {
            // On the real clock a run that does not end is a FAIL naming what it waits for.
            let runner = self
            measurement = try await HangWatch.bounded(limit: hangLimit ?? HangWatch.limit(scenario)) {
                try await runner.measure(scenario)
            }
        }
        measurement.wallSeconds = (ContinuousClock.now - started).seconds
        return try finish(scenario, measurement)
    }

    private func measure(_ scenario: Scenario) async throws -> Measurement {
        let measurement: Measurement
        switch scenario.experiment {
        case .load:
            var experiment = LoadExperiment(scenario: scenario, progress: progress)
            experiment.seams = seams
            experiment.schedule = schedule
            measurement = try await experiment.run()
        case .cancellation(let settings):
            let showProgress = progress
            measurement = try await CancellationExperiment.run(
                scenario, settings: settings, wrap: seams.wrapsTransport, clock: seams.clockWrapper
            ) {
                line in
                if showProgress { printError("  \(line)") }
            }
        }
        return measurement
    }

    /// Judges a measurement by the scenario's assertions and files it (a run's, or shards' merged).
    package func finish(_ scenario: Scenario, _ measurement: Measurement) throws -> ScenarioResult {
        var measurement = measurement
        let checks = measurement.verdict(scenario)
        measurement.files[.scenarioInfo] = ScenarioInfo(scenario).json
        var result = ScenarioResult(
            scenario: scenario, rows: measurement.rows, metrics: measurement.metrics, checks: checks, folder: nil,
            interrupted: measurement.interrupted, elapsed: measurement.elapsed, simulation: measurement.simulation)
        result.wallSeconds = measurement.wallSeconds ?? measurement.simulation?.wallSeconds
        if scenario.clock == .virtual, case .load = scenario.experiment { result.schedule = schedule }
        result.firstFailedSend = measurement.history?.firstFailedSend
        if let traceSend {
            result.trace = SendTrace.text(number: traceSend, history: measurement.history, ledger: measurement.ledger)
        }
        if let outputFolder {
            let writer = ResultsWriter(root: outputFolder, runID: runID)
            result.folder = try writer.writeScenario(scenario.name, measurement, checks: checks)
        }
        return result
    }
}
