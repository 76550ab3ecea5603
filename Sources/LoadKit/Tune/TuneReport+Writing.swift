import Foundation

extension TuneReport {
    /// Where a sweep's results went.
    package struct Written {
        var folder: URL
        package var cells: URL
        package var report: URL
        package var sends: Int
        package var elapsed: Double
    }

    /// Writes `DIR/<run>-tune-<name>/` (cells.csv, sanity.csv, summary.csv), `DIR/<run>-run.csv`
    /// (for compare) and the sweep's report beside it. Errors name the file.
    package func write(writer: ResultsWriter, elapsed: Double, interrupted: Bool) throws -> Written {
        let folder = writer.root.appendingPathComponent("\(writer.runID)-tune-\(tune.name)")
        let sends = measured.reduce(0) { $0 + $1.sends }
        var run = MetricRecorder(scenario: tune.name)
        // Wall-clock rows, named so: every other row of a sweep on virtual time is the same in every run.
        run.record(.runWallElapsed, elapsed)
        run.record(.tuneSendsPerWallSecond, Double(sends) / max(elapsed, 1e-9))
        if interrupted { run.record(.runInterrupted, 1) }
        let summary = rows + run.rows
        let cells = folder.appendingPathComponent(ResultFile.tuneCells.name)
        let report = RunOutputs.reportPath(of: writer.runCSV)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try cellsCSV.write(to: cells, atomically: true, encoding: .utf8)
        try sanityCSV.write(
            to: folder.appendingPathComponent(ResultFile.tuneSanity.name), atomically: true, encoding: .utf8)
        try outageCSV.write(
            to: folder.appendingPathComponent(ResultFile.tuneOutage.name), atomically: true, encoding: .utf8)
        try regretCSV.write(
            to: folder.appendingPathComponent(ResultFile.tuneRegret.name), atomically: true, encoding: .utf8)
        if let map {
            try map.csv.write(
                to: folder.appendingPathComponent(ResultFile.tuneMetastability.name), atomically: true,
                encoding: .utf8)
        }
        try SummaryCSV.render(summary, runID: writer.runID).write(
            to: folder.appendingPathComponent(ResultFile.summary.name), atomically: true, encoding: .utf8)
        _ = try writer.writeRun(summary)
        try HTMLReport.sweep(
            name: tune.name, runID: writer.runID, cellsCSV: cellsCSV,
            recommended: recommendedLabel, text: text, metastabilityCSV: map?.csv
        ).write(to: report, atomically: true, encoding: .utf8)
        return Written(folder: folder, cells: cells, report: report, sends: sends, elapsed: elapsed)
    }
}
