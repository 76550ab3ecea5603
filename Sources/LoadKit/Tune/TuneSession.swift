import Foundation

/// The ending of a `tune` run, as `RunSession` is of a scenario run: each sweep's folder, one
/// `<run>-run.csv` and one report for all of them, a word on a partial run, the printed verdicts,
/// the results' paths, and the exit code (0 every cell correct, 1 a duplicate, a lost send or a
/// disagreeing analytic check, 130 interrupted, 70 the results could not be written).
package struct TuneSession {
    let writer: ResultsWriter
    /// Told what is being done after the last run (writing), so a long ending is never silent.
    package var progress: (String) -> Void = { _ in }
    /// Called once the results are written, before the verdict is printed (ends a live progress line).
    package var written: () -> Void = {}

    package init(writer: ResultsWriter) {
        self.writer = writer
    }

    package func end(_ reports: [TuneReport], planned runs: Int, elapsed: Double, cancelled: Bool) -> ExitCode {
        var written: [TuneReport.Written] = []
        let report = RunOutputs.reportPath(of: writer.runCSV)
        do {
            var rows: [SummaryRow] = []
            for sweep in reports {
                progress("writing \(sweep.tune.name)'s results")
                let (folder, summary) = try sweep.write(writer: writer, elapsed: elapsed, interrupted: cancelled)
                written.append(folder)
                rows += summary
            }
            _ = try writer.writeRun(rows)
            progress("writing the report")
            try HTMLReport.sweepDocument(runID: writer.runID, sections: reports.map(\.htmlSection)).write(
                to: report, atomically: true, encoding: .utf8)
        } catch {
            self.written()
            printError("tune: could not write the results under \(writer.root.path): \(error)")
            return .software
        }
        self.written()
        if cancelled {
            let finished = reports.reduce(0) { $0 + $1.measured.reduce(0) { $0 + $1.runs.count } }
            print("partial sweep (interrupted): \(finished) of \(runs) runs finished; figures cover those only")
        }
        for (index, sweep) in reports.enumerated() {
            if reports.count > 1 {
                let role = index > 0 ? "storms" : sweep.tune.reduced == nil ? "decided" : "quick: checked, not decided"
                print("== \(sweep.tune.name) (\(role))")
            }
            print(sweep.text)
        }
        let sends = written.reduce(0) { $0 + $1.sends }
        let cells = reports.reduce(0) { $0 + $1.measured.count }
        print(
            String(
                format: "%d cells, %d sends in %.1f s (%.0f sends/s)", cells, sends, elapsed,
                Double(sends) / max(elapsed, 1e-9)))
        for folder in written { print("cells: \(folder.cells.path)") }
        print("report: \(report.path)")
        print("results: \(writer.runCSV.path)")
        if cancelled { return .interrupted }
        return reports.allSatisfy(\.correct) ? .success : .failure
    }
}
