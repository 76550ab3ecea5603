import Foundation

/// Scenarios one after another in this process (one scenario, `--same-process`, or the child of an
/// isolated run), each through `ScenarioRunner`: its verdict and timing printed as it ends, and a
/// failed one's replay command beside it. The other run modes are `IsolatedRun`, `WorkersRun` and
/// `ShardRun`; every one ends with `RunSession`.
package struct InProcessRun {
    let scenarios: [Scenario]
    let runner: ScenarioRunner
    let quick: Bool
    /// The child of an isolated run: its parent printed each scenario's header.
    let child: Bool

    package init(scenarios: [Scenario], runner: ScenarioRunner, quick: Bool, child: Bool) {
        self.scenarios = scenarios
        self.runner = runner
        self.quick = quick
        self.child = child
    }

    /// Runs the scenarios until all ran or the task is cancelled; a scenario that cannot run stops
    /// the run with its error. A scenario that hangs (`HangWatch`) is a FAIL naming what it waited
    /// for, and the last one run: its work may still be running, left behind.
    package func run() async throws -> [RunSession.Entry] {
        var results: [RunSession.Entry] = []
        for (index, scenario) in scenarios.enumerated() {
            if Task.isCancelled { break }
            if !child { printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)") }
            do {
                let result = try await runner.run(scenario)
                printError("  \(result.verdictLine) \(result.timingText)")
                if !result.passed, !result.interrupted,
                    let replay = result.replayCommand(quick: quick, broken: runner.broken?.name)
                {
                    printError("  replay: \(replay)")
                }
                if let trace = result.trace { printError(trace) }
                results.append(RunSession.Entry(result))
            } catch let hang as HangWatch.Hang {
                let entry = RunSession.Entry(name: scenario.name, error: "\(hang)")
                printError("  \(entry.verdictLine)")
                results.append(entry)
                break
            } catch {
                printError("  \(scenario.name) could not run: \(error)")
                throw error
            }
        }
        return results
    }
}
