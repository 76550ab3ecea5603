import FakeFrontmail
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a run writes besides its CSV, all read back from the CSV and next to it: the HTML report,
/// JUnit XML and a Markdown summary (`DIR/<run>-report.html`, `-junit.xml`, `-summary.md`, or where
/// the arguments say), the summary also appended to `GITHUB_STEP_SUMMARY` when the environment
/// names one.
package struct RunOutputs {
    /// Where the JUnit XML and the Markdown go (nil: beside the run's CSV).
    var junit: String?
    var summaryMarkdown: String?
    /// The GitHub job summary file (from the environment).
    package var stepSummary: String? = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"].flatMap {
        $0.isEmpty ? nil : $0
    }

    package init(junit: String? = nil, summaryMarkdown: String? = nil) {
        self.junit = junit
        self.summaryMarkdown = summaryMarkdown
    }

    /// `DIR/<run>-report.html` beside `DIR/<run>-run.csv`.
    package static func reportPath(of runCSV: URL) -> URL { sibling(of: runCSV, "report.html") }

    /// `DIR/<run>-<suffix>` beside `DIR/<run>-run.csv`.
    static func sibling(of runCSV: URL, _ suffix: String) -> URL {
        let name = runCSV.lastPathComponent
        let stem = name.hasSuffix("-run.csv") ? String(name.dropLast("-run.csv".count)) : name
        return runCSV.deletingLastPathComponent().appendingPathComponent(stem + "-" + suffix)
    }

    /// Writes every output; returns the report's path and the run's wall-time line (nil when no
    /// scenario recorded its wall time). Errors name the file.
    func write(runCSV: URL, order: [String], errors: [String: String]) throws -> (report: URL, wall: String?) {
        let results = try RunResults.read(runCSV: runCSV, errors: errors, order: order)
        let report = Self.reportPath(of: runCSV)
        try Self.save(HTMLReport.render([results]), to: report.path)
        try Self.save(JUnitWriter.render(results), to: junit ?? Self.sibling(of: runCSV, "junit.xml").path)
        let markdown = SummaryMarkdown.render(results)
        try Self.save(markdown, to: summaryMarkdown ?? Self.sibling(of: runCSV, "summary.md").path)
        if let stepSummary { try Self.append(markdown, to: stepSummary) }
        return (report, results.wallSummary)
    }

    /// Writes `text` to the file at `path` through a temporary file and a rename (`OutputFile`: a
    /// reader never sees half of it, a link is written through, a device or FIFO is refused).
    package static func save(_ text: String, to path: String) throws {
        do {
            try OutputFile.write(Data(text.utf8), to: URL(fileURLWithPath: path))
        } catch let refused as OutputFile.Refused {
            throw OutputError(path: refused.path, reason: refused.reason)
        } catch {
            throw OutputError(path: path, reason: error.localizedDescription)
        }
    }

    static func nonRegularKind(at path: String) -> String? { OutputFile.nonRegularKind(at: path) }

    /// Appends `text` to the regular file at `path` (made when missing); anything else is refused
    /// before it is opened (opening a FIFO nobody reads would block).
    package static func append(_ text: String, to path: String) throws {
        if let kind = nonRegularKind(at: path) {
            throw OutputError(path: path, reason: "it is \(kind), not a regular file")
        }
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
