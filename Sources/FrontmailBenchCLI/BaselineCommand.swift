import FakeFrontmail
import Foundation
import LoadKit

/// `frontmail-bench baseline`: merges several runs of a benchmark into the baseline `compare` reads.
public enum BaselineCommand {
    public static let usage = """
        usage: frontmail-bench baseline RUN.csv RUN.csv RUN.csv... --out BASELINE.csv

        Merges summary CSVs of the same benchmark, run several times (in separate processes), into one
        baseline: every figure is the median of the runs; every same-run ratio's spread
        (spread_vs_*) is the larger of the spreads the runs measured and the spread of that ratio
        between the runs (half their range), so the tolerance covers what changes from one process to the next.
        Give at least three runs (docs/benchmarks.md; scripts/update-baselines.sh does it all).

        \(ExitTable.help("baseline"))
        """

    public static func run(_ arguments: [String]) -> ExitCode {
        let command = CommandArguments(
            "baseline", arguments, spec: Arguments.Spec(options: ["out"], flags: []), usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        guard let out = parsed.value("out") else {
            printError("baseline: give --out BASELINE.csv\n\n\(usage)")
            return .usage
        }
        guard parsed.positionals.count >= 3 else {
            printError("baseline: give at least three runs (a spread between runs needs three)\n\n\(usage)")
            return .usage
        }
        if let refused = refuseOutputsNamingInputs("baseline", [("out", out)], inputs: parsed.positionals) {
            return refused
        }
        guard let runs = readSummaries(parsed.positionals) else { return .dataError }
        for (file, rows) in zip(parsed.positionals, runs)
        where rows.contains(where: { $0.key == MetricKey.runInterrupted.text && $0.value > 0 }) {
            printError("baseline: \(file) is an interrupted run (partial results): no baseline is made of one")
            return .dataError
        }
        let merged = BaselineMerge.merge(runs)
        do {
            try RunOutputs.save(SummaryCSV.render(merged, runID: RunID.make()), to: out)
        } catch {
            printError("baseline: \(error)")
            return .software
        }
        print("baseline: \(merged.count) rows from \(runs.count) runs written to \(out)")
        return .success
    }
}
