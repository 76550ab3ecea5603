import FakeFrontmail
import Foundation
import LoadKit

/// `frontmail-bench report`: the HTML report (and JUnit, Markdown) of results already written.
public enum ReportCommand {
    public static let usage = """
        usage: frontmail-bench report RUN.csv [RUN.csv...] [--out FILE.html] [--junit FILE] [--summary-md FILE]

        Writes the report of a run from its results folder (RUN.csv is the DIR/<run>-run.csv a run
        printed; the CSV is the source, nothing is measured): one self-contained HTML file with the
        verdicts and charts of every scenario (docs/report.md). More runs overlay their latency on
        the first one's. Default --out: DIR/<run>-report.html beside the first RUN.csv.

          --out FILE.html    where the report goes
          --junit FILE       also the verdicts as JUnit XML
          --summary-md FILE  also a Markdown summary of the verdicts

        \(ExitTable.help("report"))
        """

    static let spec = Arguments.Spec(options: ["out", "junit", "summary-md"])

    public static func run(_ arguments: [String]) -> ExitCode {
        let command = CommandArguments("report", arguments, spec: spec, usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        if let refused = refuseInputsAndOutputs(
            "report", parsed, outputs: ["out", "junit", "summary-md"], missing: "name at least one RUN.csv",
            usage: usage)
        {
            return refused
        }
        var runs: [RunResults] = []
        for path in parsed.positionals {
            do {
                let run = try RunResults.read(runCSV: URL(fileURLWithPath: path))
                guard !run.isEmpty else {
                    printError("\(path): no scenario ran in it (a header and no rows): nothing to report")
                    return .dataError
                }
                runs.append(run)
            } catch {
                // A file that cannot be read names itself; one that can is not a run's summary.
                printError((error as? InputFileError)?.description ?? "\(path): not a run's summary (\(error))")
                return .dataError
            }
        }
        let first = URL(fileURLWithPath: parsed.positionals[0])
        let out = parsed.value("out") ?? RunOutputs.reportPath(of: first).path
        do {
            try RunOutputs.save(HTMLReport.render(runs), to: out)
            if let junit = parsed.value("junit") { try RunOutputs.save(JUnitWriter.render(runs[0]), to: junit) }
            if let markdown = parsed.value("summary-md") {
                try RunOutputs.save(SummaryMarkdown.render(runs[0]), to: markdown)
            }
        } catch {
            printError("report: \(error)")
            return .software
        }
        print("report: \(out)")
        return .success
    }
}
