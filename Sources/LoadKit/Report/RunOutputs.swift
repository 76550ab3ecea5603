import Foundation

/// What a run writes besides its CSV, all read back from the CSV: the HTML report next to the run's
/// summary, and on request JUnit XML and a Markdown summary (also appended to `GITHUB_STEP_SUMMARY`
/// when the environment names one).
struct RunOutputs {
    var junit: String?
    var summaryMarkdown: String?
    /// The GitHub job summary file (from the environment).
    var stepSummary: String? = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// `DIR/<run>-report.html` beside `DIR/<run>-run.csv`.
    static func reportPath(of runCSV: URL) -> URL {
        let name = runCSV.lastPathComponent
        let stem = name.hasSuffix("-run.csv") ? String(name.dropLast("-run.csv".count)) : name
        return runCSV.deletingLastPathComponent().appendingPathComponent(stem + "-report.html")
    }

    /// Writes every output; returns the report's path. Errors name the file.
    func write(runCSV: URL, order: [String], errors: [String: String]) throws -> URL {
        let results = try RunResults.read(runCSV: runCSV, errors: errors, order: order)
        let report = Self.reportPath(of: runCSV)
        try Self.save(HTMLReport.render([results]), to: report.path)
        if let junit { try Self.save(JUnitWriter.render(results), to: junit) }
        let markdown = SummaryMarkdown.render(results)
        if let summaryMarkdown { try Self.save(markdown, to: summaryMarkdown) }
        if let stepSummary { try Self.append(markdown, to: stepSummary) }
        return report
    }

    static func save(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw OutputError(path: path, reason: error.localizedDescription)
        }
    }

    static func append(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            try save(text, to: path)
            return
        }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw OutputError(path: path, reason: error.localizedDescription)
        }
    }

    struct OutputError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): could not be written (\(reason))" }
    }
}
