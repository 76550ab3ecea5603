import Foundation
import LoadKit

extension RunCommand {
    /// Runs each scenario in a child process (`IsolatedRun`), then ends the run with their results.
    static func runIsolated(
        _ scenarios: [Scenario], parsed: Arguments, executable: String, out: URL, runID: String
    ) async -> ExitCode {
        var configured = IsolatedRun(
            scenarios: scenarios, executable: executable, out: out, runID: runID, quick: parsed.flag(.quick),
            seed: parsed.value(.seed), progress: !parsed.flag(.noProgress))
        configured.schedule = parsed.value(.schedule)
        configured.broken = parsed.value(.broken)
        let isolated = configured
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: the current scenario writes its partial results, then the run stops…",
            signalled: isolated.children.forward
        ) { await isolated.run() }
        let entries = (try? outcome.get()) ?? []
        let session = RunSession(
            command: "run", writer: ResultsWriter(root: out, runID: runID), outputs: outputs(parsed))
        return session.end(entries, planned: scenarios.count, cancelled: cancelled)
    }
}
