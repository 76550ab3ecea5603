import Foundation

/// The ending of a sweep, as `RunSession` is of a scenario run: the sweep's folder and
/// `<run>-run.csv`, a word on a partial sweep, the printed verdict, the results' paths, and the
/// exit code (0 every cell correct, 1 a duplicate, a lost send or a disagreeing analytic check,
/// 130 interrupted, 70 the results could not be written).
package struct TuneSession {
    let writer: ResultsWriter

    package init(writer: ResultsWriter) {
        self.writer = writer
    }

    package func end(_ report: TuneReport, planned runs: Int, elapsed: Double, cancelled: Bool) -> ExitCode {
        let written: TuneReport.Written
        do {
            written = try report.write(writer: writer, elapsed: elapsed, interrupted: cancelled)
        } catch {
            printError("tune: could not write the results under \(writer.root.path): \(error)")
            return .software
        }
        if cancelled {
            let finished = report.measured.reduce(0) { $0 + $1.runs.count }
            print("partial sweep (interrupted): \(finished) of \(runs) runs finished; figures cover those only")
        }
        print(report.text)
        print(
            String(
                format: "%d cells, %d sends in %.1f s (%.0f sends/s)", report.measured.count, written.sends,
                written.elapsed, Double(written.sends) / max(written.elapsed, 1e-9)))
        print("cells: \(written.cells.path)")
        print("report: \(written.report.path)")
        print("results: \(writer.runCSV.path)")
        if cancelled { return .interrupted }
        return report.correct ? .success : .failure
    }
}
