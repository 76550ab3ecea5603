import FakeFrontmail
import Foundation
import LoadKit

/// `frontmail-bench merge`: judges the shards of a run as one run.
public enum MergeCommand {
    public static let usage = """
        usage: frontmail-bench merge FILE|DIR... [--out DIR] [--junit FILE] [--summary-md FILE] [--run-id ID]

        Merges the raw results of `run --shard i/N` (*.fmshard files, or folders holding them) into
        one run per scenario: histories and ledgers by union, then the probes and the scenario's
        assertions on the union. Writes what one `run` writes (DIR/<run>-run.csv, the scenario's
        folder, the report, JUnit XML and a Markdown summary), so `compare` and reports work alike.
        Refuses shards of different scenario files, seeds, schema versions or shard counts, and a
        run with a shard missing, naming which (docs/distributed.md).

          --out DIR          where results go (default results)
          --junit FILE       write the JUnit XML there instead
          --summary-md FILE  write the Markdown summary there instead
          --run-id ID        the merged run's id (1-64 letters, digits, - and _; default: a new one)

        \(ExitTable.help("merge"))
        """

    static let spec = Arguments.Spec(options: ["out", "junit", "summary-md", "run-id"])

    public static func run(_ arguments: [String]) -> ExitCode {
        // A signal from here on: merge stops after the step it is in (reading and judging the
        // parts, or writing one scenario's results), says what it wrote and exits 130; at the
        // latest 2 s later it ends anyway.
        let late = LateSignal(notice: "\ninterrupted: merge stops after what it is doing…")
        defer { late.stop() }
        let command = CommandArguments("merge", arguments, spec: spec, usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        if let refused = refuseInputsAndOutputs(
            "merge", parsed, outputs: ["junit", "summary-md"],
            missing: "name the shard files or the folders that hold them", usage: usage)
        {
            return refused
        }
        if let given = parsed.value("run-id"), let problem = RunID.problem(given) {
            printError("merge: --run-id \(problem)")
            return .usage
        }
        let merged: [ShardMerge.Merged]
        do {
            merged = try ShardMerge.merge(paths: parsed.positionals)
        } catch {
            printError("merge: \(error)")
            return .dataError
        }
        if late.came {
            printError("merge: interrupted before any result was written")
            return .interrupted
        }
        guard
            let writer = claimOutput(
                "merge", parsed, { try ResultsWriter.claim(root: $0, runID: parsed.value("run-id") ?? RunID.make()) })
        else { return .software }
        let runner = ScenarioRunner(outputFolder: writer.root, runID: writer.runID, progress: false)
        var results: [ScenarioResult] = []
        for (scenario, measurement, shards) in merged {
            if late.came { break }
            do {
                results.append(try runner.finish(scenario, measurement))
            } catch {
                printError("merge: could not write the results of \(scenario.name): \(error)")
                return .software
            }
            printError(
                "merged \(shards) shard\(shards == 1 ? "" : "s") of \(scenario.name): "
                    + "\(measurement.history?.records.count ?? 0) sends, \(measurement.ledger?.count ?? 0) requests")
        }
        let session = RunSession(command: "merge", writer: writer, outputs: RunCommand.outputs(parsed))
        return session.end(results.map(RunSession.Entry.init), planned: merged.count, cancelled: late.came)
    }
}
