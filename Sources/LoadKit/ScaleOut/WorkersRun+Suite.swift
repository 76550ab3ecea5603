import Foundation

extension WorkersRun {
    /// `run --workers N`: per scenario, N child processes run one shard each (a socket scenario's
    /// children share a server this process runs), then the parts are merged and judged here and
    /// written as any run's are. A scenario that cannot be sharded runs whole, here, and says why.
    /// An entry per scenario that ran, in order, until all ran or the task is cancelled.
    package static func runAll(
        _ scenarios: [Scenario], workers: Int, quick: Bool, executable: String, out: URL, runID: String,
        progress: Bool, children: RunningChildren
    ) async -> [RunSession.Entry] {
        var entries: [RunSession.Entry] = []
        let runner = ScenarioRunner(outputFolder: out, runID: runID, progress: false)
        for (index, scenario) in scenarios.enumerated() {
            if Task.isCancelled { break }
            let shard = Shard(uncheckedIndex: 0, count: workers)
            do {
                let result: ScenarioResult
                if let problem = scenario.shardingProblem(
                    shard, sharedServer: scenario.transport.servesOtherProcesses, measuredOnce: true)
                {
                    printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
                    printError("  not sharded, runs in one process: \(problem)")
                    var whole = runner
                    whole.progress = progress
                    result = try await whole.run(scenario)
                } else {
                    printError(
                        "[\(index + 1)/\(scenarios.count)] \(scenario.name) on \(workers) workers: "
                            + scenario.description)
                    let run = WorkersRun(
                        scenario: scenario, workers: workers, quick: quick, executable: executable,
                        folder: ResultsWriter(root: out, runID: runID).folder(of: scenario.name)
                            .appendingPathComponent("shards"), progress: progress, runID: runID, children: children)
                    result = try runner.finish(scenario, try await run.run())
                }
                printError("  \(result.verdictLine) \(result.timingText)")
                entries.append(RunSession.Entry(result))
            } catch let crashed as WorkersRun.Crashed {
                // Its stderr, the backtrace included, was passed on as it came.
                let entry = RunSession.Entry(name: scenario.name, crash: crashed.crash, rows: [])
                printError("  \(entry.verdictLine) in worker \(crashed.worker)/\(crashed.workers)")
                do {
                    try crashed.crash.write(into: ResultsWriter(root: out, runID: runID).folder(of: scenario.name))
                } catch {
                    printError("  \(scenario.name): could not write its crash report: \(error.localizedDescription)")
                }
                entries.append(entry)
            } catch {
                printError("  ERROR \(scenario.name): \(error)")
                entries.append(RunSession.Entry(name: scenario.name, error: "\(error)"))
            }
        }
        return entries
    }
}
