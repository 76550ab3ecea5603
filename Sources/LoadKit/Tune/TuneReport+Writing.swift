import Foundation

extension TuneReport {
    /// Where a sweep's results went.
    package struct Written {
        var folder: URL
        package var cells: URL
        package var sends: Int
    }

    /// Writes `DIR/<run>-tune-<name>/` (cells.csv, sanity.csv, regret.csv, deadlines.csv, …,
    /// summary.csv). Errors name the file. Returns the folder and the summary rows it wrote.
    func write(writer: ResultsWriter, elapsed: Double, interrupted: Bool) throws -> (Written, [SummaryRow]) {
        let folder = writer.root.appendingPathComponent("\(writer.runID)-tune-\(tune.name)")
        let sends = measured.reduce(0) { $0 + $1.sends }
        var run = MetricRecorder(scenario: tune.name)
        // Wall-clock rows, named so: every other row of a sweep on virtual time is the same in every run.
        run.record(.runWallElapsed, elapsed)
        run.record(.tuneSendsPerWallSecond, Double(sends) / max(elapsed, 1e-9))
        if interrupted { run.record(.runInterrupted, 1) }
        let summary = rows + run.rows
        let cells = folder.appendingPathComponent(ResultFile.tuneCells.name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [(ResultFile, String)] = [
            (.tuneCells, cellsCSV), (.tuneSanity, sanityCSV), (.tuneOutage, outageCSV), (.tuneRegret, regretCSV),
            (.tuneDeadlines, deadlinesCSV), (.summary, SummaryCSV.render(summary, runID: writer.runID)),
        ]
        if let joint { files.append((.tuneStorms, StormScreen.header + "\n" + joint.screens.map(\.rows).joined())) }
        if let map { files.append((.tuneMetastability, map.csv)) }
        for (file, text) in files {
            try text.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
        }
        return (Written(folder: folder, cells: cells, sends: sends), summary)
    }

    /// The report's section of this sweep: the decision first, then the charts.
    var htmlSection: String {
        HTMLReport.sweepSection(
            name: tune.name, cellsCSV: cellsCSV, recommended: recommendedLabel, decision: decisionHTML, text: text,
            metastabilityCSV: map?.csv)
    }
}
