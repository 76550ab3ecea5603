import Foundation
import Synchronization

/// Scenarios each in a child `frontmail-bench run FILE --only NAME`, one after another, so that
/// one scenario's URLSession state (or a crash) cannot affect the next; each child writes its
/// results into this run's folder and prints its verdict for this process.
package struct IsolatedRun {
    let scenarios: [Scenario]
    let executable: String
    let out: URL
    let runID: String
    let quick: Bool
    /// The `--seed` given to this run, passed on as written.
    let seed: String?
    /// The `--schedule` given to this run, passed on as written.
    package var schedule: String?
    /// The `--broken` client given to this run, passed on as written.
    package var broken: String?
    let progress: Bool
    /// The child running now, for forwarding a signal (each child runs in its own process group:
    /// the terminal's signal does not reach it).
    package let children = RunningChildren()

    package init(
        scenarios: [Scenario], executable: String, out: URL, runID: String, quick: Bool, seed: String?, progress: Bool
    ) {
        self.scenarios = scenarios
        self.executable = executable
        self.out = out
        self.runID = runID
        self.quick = quick
        self.seed = seed
        self.progress = progress
    }

    /// Runs the scenarios until all ran or the task is cancelled: an entry per scenario that ran.
    package func run() async -> [RunSession.Entry] {
        let writer = ResultsWriter(root: out, runID: runID)
        var entries: [RunSession.Entry] = []
        for (index, scenario) in scenarios.enumerated() {
            if Task.isCancelled { break }
            printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
            let request = ChildRequest.scenario(
                file: scenario.file, name: scenario.name, out: out.path, runID: runID, quick: quick, seed: seed,
                schedule: schedule, broken: broken, progress: progress)
            let verdict = Mutex<String?>(nil)
            let outcome = await ChildProcess.runCapturing(
                executable, arguments: request.arguments, children: children,
                environment: [ChildEnvironment.claimedRun: runID].merging(
                    scenario.timeZone.map { ["TZ": $0] } ?? [:], uniquingKeysWith: { $1 })
            ) { reply in
                if case .verdict(let line) = reply { verdict.withLock { $0 = line } }
            }
            let status = outcome.status
            let rows = writer.summaryRows(of: scenario.name)
            if let crash = outcome.crash {
                // A finding, whatever the child printed before it died: never retried, never a pass.
                let entry = RunSession.Entry(name: scenario.name, crash: crash, rows: rows)
                printError("  \(entry.verdictLine)")
                do {
                    try crash.write(into: writer.folder(of: scenario.name))
                } catch {
                    printError("  \(scenario.name): could not write its crash report: \(error.localizedDescription)")
                }
                entries.append(entry)
            } else if let line = verdict.withLock({ $0 }) {
                entries.append(RunSession.Entry(name: scenario.name, childVerdict: line, status: status, rows: rows))
            } else {
                printError("  ERROR \(scenario.name): exited \(status) without a verdict")
                entries.append(
                    RunSession.Entry(
                        name: scenario.name, error: "the run ended without a verdict (exit \(status))", status: status,
                        rows: rows))
            }
        }
        return entries
    }
}
