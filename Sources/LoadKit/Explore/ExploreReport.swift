import Foundation
import Simulator

/// `explore.html`: an exploration on one self-contained page (inline CSS and SVG, nothing
/// fetched): every property's verdict and checks, each distinct failure with its file and replay
/// command, and the SDK's decision points, reached or VACUOUS. Derived from the summary alone, so
/// the same exploration gives the same bytes (the wall time aside).
enum ExploreReport {
    static func render(_ summary: ExploreSummary, runID: String) -> String {
        let options = summary.options
        var body = "<h1>frontmail-bench explore \(XML.escape(runID))</h1>\n"
        var lead = String(
            format: "%d cases, %d sends in %.1f s; seed %llu, schedule %@, %d at a time", summary.runs, summary.sends,
            summary.wallSeconds, options.seed, Schedule.spelled(options.schedule), options.jobs)
        if let broken = options.broken { lead += "; broken client \(broken.name)" }
        if summary.interrupted { lead += "; interrupted" }
        let failed = (ExploreSummary.propertyNames + [ExploreProperty.jitterUniform]).filter {
            summary.verdict($0) == "FAIL"
        }
        lead += failed.isEmpty ? ". Nothing found." : ". Failed: " + failed.joined(separator: ", ") + "."
        body += "<p class=\"lead\">\(XML.escape(lead))</p>\n"
        body += properties(summary)
        body += failures(summary)
        body += decisions(summary)
        return HTMLReport.document(title: "frontmail-bench explore \(runID)", body: body)
    }

    private static func badge(_ verdict: String) -> String {
        // VACUOUS in amber, inline: the run report's style sheet (and its golden files) stay as they are.
        if verdict == "VACUOUS" { return "<span class=\"badge\" style=\"color:#9a6700\">VACUOUS</span>" }
        return "<span class=\"badge \(verdict == "FAIL" ? "fail" : "pass")\">\(XML.escape(verdict))</span>"
    }

    private static func properties(_ summary: ExploreSummary) -> String {
        var html =
            "<h2>Properties</h2>\n<table><tr><th>property</th><th>verdict</th><th>checked</th><th>violations</th><th>failing cases</th><th>distinct failures</th><th>first found</th></tr>\n"
        for name in ExploreSummary.propertyNames + [ExploreProperty.jitterUniform] {
            let tally = summary.tallies[name] ?? ExploreSummary.Tally()
            let pooled = name == ExploreProperty.jitterUniform
            let checked = pooled ? summary.realized.count : tally.checked
            let violations = tally.violations + (pooled && summary.pooled != nil ? 1 : 0)
            let distinct = summary.found.filter { $0.property == name }.count
            let first = summary.firstFound(name).map { String(format: "%.1f s", $0) } ?? "–"
            html +=
                "<tr><td>\(XML.escape(name))</td><td>\(badge(summary.verdict(name)))</td><td>\(checked)</td><td>\(violations)</td><td>\(tally.failingRuns)</td><td>\(distinct)</td><td>\(first)</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private static func failures(_ summary: ExploreSummary) -> String {
        guard !summary.found.isEmpty else { return "" }
        var html = "<h2>Failures, shrunk</h2>\n"
        if let broken = summary.options.broken {
            html +=
                "<p>Found with the broken client \(XML.escape(broken.name)) (\(XML.escape(broken.summary))): the SDK as it is passes these files.</p>\n"
        }
        for failure in summary.found {
            let file = failure.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "not written"
            html +=
                "<h3>\(XML.escape(failure.property))</h3>\n<p>Case \(failure.original.index) (seed \(failure.original.drawn.seed)), \(failure.original.drawn.size.sends) sends and \(failure.original.drawn.size.rules) rules, shrunk in \(failure.shrinkRuns) runs to \(failure.shrunk.size.sends) sends and \(failure.shrunk.size.rules) rules: <a href=\"found/\(XML.escape(file))\">found/\(XML.escape(file))</a>.</p>\n"
            if let path = failure.file {
                html += "<pre>\(XML.escape(failure.replayCommand(file: path, broken: summary.options.broken)))</pre>\n"
            }
            if let error = failure.error { html += "<p class=\"fail\">The run failed: \(XML.escape(error))</p>\n" }
        }
        return html
    }

    private static func decisions(_ summary: ExploreSummary) -> String {
        let points = DecisionPoint.allCases
        let reached = points.filter { summary.reached[$0] != nil }.count
        var html =
            "<h2>Decision points</h2>\n<p>\(reached) of \(points.count) of the SDK's decision points reached, read from the server's ledger, the status reads and the plans (docs/explore.md, \"Coverage\").</p>\n"
        if let svg = BarChart.render(
            categories: points.map(\.name),
            series: [BarChart.Series(name: "cases", values: points.map { Double(summary.reached[$0]?.cases ?? 0) })],
            yTitle: "cases that reached it", title: "Cases reaching each decision point")
        {
            html += HTMLReport.figure(svg, caption: "Cases that reached each decision point (0: VACUOUS).")
        }
        html += "<table><tr><th>decision point</th><th>coverage</th><th>times</th><th>cases</th></tr>\n"
        for point in points {
            let seen = summary.reached[point]
            html +=
                "<tr><td>\(XML.escape(point.name))</td><td>\(badge(seen == nil ? "VACUOUS" : "COVERED"))</td><td>\(seen?.times ?? 0)</td><td>\(seen?.cases ?? 0)</td></tr>\n"
        }
        return html + "</table>\n"
    }
}
