import FakeFrontmail
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RunCommand {
    /// Runs each scenario in a child `frontmail-bench run FILE --only NAME`, then combines the results.
    static func runIsolated(
        _ scenarios: [Scenario], parsed: Arguments, executable: String, out: URL, runID: String
    ) async -> ExitCode {
        let running = RunningChildren()
        let child = Task { () -> [(Scenario, Int32, String?)] in
            var outcomes: [(Scenario, Int32, String?)] = []
            for (index, scenario) in scenarios.enumerated() {
                if Task.isCancelled { break }
                printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
                var arguments = ["run", scenario.file, "--only", scenario.name, "--out", out.path, "--run-id", runID]
                if parsed.flag("quick") { arguments.append("--quick") }
                if let seed = parsed.value("seed") { arguments += ["--seed", seed] }
                if parsed.flag("no-progress") { arguments.append("--no-progress") }
                let (status, output) = await runChild(executable, arguments, running: running)
                let verdict = output.split(separator: "\n").map(String.init).last {
                    $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") || $0.hasPrefix("INTERRUPTED ")
                }
                if verdict == nil { printError("  ERROR \(scenario.name): exited \(status) without a verdict") }
                outcomes.append((scenario, status, verdict))
            }
            return outcomes
        }
        let interruption = InterruptHandler { name in
            printError("\ninterrupted: the current scenario writes its partial results, then the run stops…")
            child.cancel()
            // Each child runs in its own process group: the terminal's signal does not reach it.
            running.forward(name == "SIGINT" ? SIGINT : SIGTERM)
        }
        defer { interruption.stop() }
        let outcomes = await child.value
        let writer = ResultsWriter(root: out, runID: runID)
        guard let combined = writeRun(outcomes.flatMap { writer.summaryRows(of: $0.0.name) }, writer) else {
            return .software
        }
        var errors: [String: String] = [:]
        for (scenario, status, verdict) in outcomes {
            print(verdict ?? "FAIL \(scenario.name): the run ended without a verdict (exit \(status))")
            if verdict == nil { errors[scenario.name] = "the run ended without a verdict (exit \(status))" }
        }
        guard writeOutputs(parsed, combined, order: outcomes.map(\.0.name), errors: errors) else { return .software }
        print("results: \(combined.path)")
        if child.isCancelled || outcomes.contains(where: { $0.1 == ExitCode.interrupted.rawValue }) {
            return .interrupted
        }
        if outcomes.count < scenarios.count { return .interrupted }
        return outcomes.allSatisfy({ $0.1 == 0 }) ? .success : .failure
    }

    /// Runs a child process; its stderr goes to ours, its stdout is returned with its exit status
    /// (128 + the signal when a signal ended it).
    static func runChild(_ executable: String, _ arguments: [String], running: RunningChildren) async -> (Int32, String)
    {
        await withCheckedContinuation { continuation in
            guard let (pid, output) = ChildProcess.spawn(executable, arguments) else {
                continuation.resume(returning: (-1, ""))
                return
            }
            running.started(pid)
            DispatchQueue.global().async {
                let data = FileHandle(fileDescriptor: output, closeOnDealloc: true).readDataToEndOfFile()
                let status = ChildProcess.wait(pid)
                running.ended(pid)
                continuation.resume(returning: (status, String(decoding: data, as: UTF8.self)))
            }
        }
    }
}
