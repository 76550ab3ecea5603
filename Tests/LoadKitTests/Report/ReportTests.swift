import Foundation
import Testing

@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The report, JUnit and Markdown of a small fixed result set (`Fixtures/report`), against golden
/// files, and their structure: every SVG and the JUnit parse as XML, counts add up, the `.hgrm`
/// agrees with the histogram it came from.
///
/// Regenerate the golden files after an intended change:
/// `FRONTMAIL_UPDATE_GOLDEN=1 swift test --filter ReportTests`, then review the diff.
@Suite("reports: HTML, SVG, JUnit, Markdown, hgrm")
struct ReportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/report")
    static let runCSV = fixtures.appendingPathComponent("20261201T000000Z-run.csv")

    static func results() throws -> RunResults {
        try RunResults.read(runCSV: runCSV, errors: ["gamma": "the run ended without a verdict (exit 70)"])
    }

    /// Compares with the golden file, or rewrites it when asked to.
    static func golden(_ text: String, _ name: String) throws {
        let file = fixtures.appendingPathComponent("golden").appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["FRONTMAIL_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file (regenerate: FRONTMAIL_UPDATE_GOLDEN=1)")
    }

    /// Whether `text` is well-formed XML.
    static func parses(_ text: String) -> Bool {
        XMLParser(data: Data(text.utf8)).parse()
    }

    static func svgs(_ html: String) -> [String] {
        var found: [String] = []
        var rest = html[...]
        while let start = rest.range(of: "<svg "), let end = rest[start.lowerBound...].range(of: "</svg>") {
            found.append(String(rest[start.lowerBound..<end.upperBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    @Test("the golden files: report, JUnit, Markdown")
    func goldenFiles() throws {
        let results = try Self.results()
        try Self.golden(HTMLReport.render([results]), "report.html")
        try Self.golden(JUnitWriter.render(results), "junit.xml")
        try Self.golden(SummaryMarkdown.render(results), "summary.md")
    }

    @Test("the report is self-contained, deterministic and its charts parse as XML with axes and captions")
    func reportStructure() throws {
        let results = try Self.results()
        let html = HTMLReport.render([results])
        #expect(html == HTMLReport.render([try Self.results()]))
        for forbidden in ["<script", "http://", "https://", "@import", "url(", "<img", "<link"] {
            let allowed =
                forbidden == "http://" ? html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "") : html
            #expect(!allowed.contains(forbidden), "the report holds \(forbidden)")
        }
        let charts = Self.svgs(html)
        // alpha: spectrum, jitter, two per-attempt jitter charts are too small (15 each < 20), timeline,
        // outcomes; beta: outcomes, cancellation.
        let titles = charts.compactMap { svg -> String? in
            guard let range = svg.range(of: "<title>") else { return nil }
            return String(svg[range.upperBound...].prefix { $0 != "<" })
        }
        #expect(
            titles == [
                "alpha: latency by percentile", "alpha: backoff jitter", "alpha: timeline", "alpha: send outcomes",
                "beta: send outcomes", "beta: cancellation latency by phase",
            ])
        for svg in charts {
            #expect(Self.parses(svg), "an SVG does not parse")
            #expect(svg.contains("<line") && svg.contains("<text"), "a chart without axes")
        }
        #expect(html.components(separatedBy: "<figcaption>").count - 1 == charts.count)
        // The failed assertion, the error, the duplicate send and the shaded window are all there.
        #expect(html.contains("ERROR") && html.contains("the run ended without a verdict (exit 70)"))
        #expect(html.contains("send 1: 2 effects (duplicate)"))
        #expect(html.contains("brownout") && html.contains("fill-opacity"))
        #expect(html.contains("A brownout from 3 s to 5 s &amp; &lt;recovery&gt;."))
    }

    @Test("JUnit parses, and its counts add up: a testcase per assertion, failures and errors counted")
    func junit() throws {
        let xml = JUnitWriter.render(try Self.results())
        #expect(Self.parses(xml))
        #expect(xml.contains(#"<testsuites name="frontmail-bench 20261201T000000Z" tests="6" failures="1" errors="1""#))
        #expect(xml.contains(#"<testsuite name="alpha" tests="3" failures="0" errors="0""#))
        #expect(xml.contains(#"<testsuite name="beta" tests="2" failures="1" errors="0""#))
        #expect(xml.contains(#"<testsuite name="gamma" tests="1" failures="0" errors="1""#))
        #expect(xml.contains("idempotency.duplicates == 0: actual 1, expected 0"))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 6)
    }

    @Test("absence is not success: a missing results folder or a damaged assertions file is an error, not a pass")
    func missingResults() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.fixtures, to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let runCSV = folder.appendingPathComponent("20261201T000000Z-run.csv")
        // beta failed one of its two assertions; with its folder gone nothing may call it a pass.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("20261201T000000Z-beta"))
        let withoutBeta = try RunResults.read(runCSV: runCSV)
        let beta = try #require(withoutBeta.scenarios.first { $0.name == "beta" })
        #expect(!beta.passed && beta.error?.contains("is missing") == true)
        let xml = JUnitWriter.render(withoutBeta)
        #expect(xml.contains(#"<testsuite name="beta" tests="1" failures="0" errors="1""#), "\(xml)")
        #expect(SummaryMarkdown.render(withoutBeta).contains("| beta | **ERROR** |"))
        // A row of alpha's assertions that cannot be read is an error too, not a dropped check.
        let assertions = folder.appendingPathComponent("20261201T000000Z-alpha/assertions.csv")
        try (String(contentsOf: assertions, encoding: .utf8) + "send.ok >= 1,maybe\n").write(
            to: assertions, atomically: true, encoding: .utf8)
        let alpha = try #require(try RunResults.read(runCSV: runCSV).scenarios.first { $0.name == "alpha" })
        #expect(!alpha.passed && alpha.error?.contains("is not an assertion row") == true)
    }

    @Test("the Markdown summary: a row per scenario, the failures listed, markup escaped, cut at 64 KB")
    func markdown() throws {
        let text = SummaryMarkdown.render(try Self.results())
        #expect(text.hasPrefix("## frontmail-bench run 20261201T000000Z: 1 of 3 scenarios passed"))
        #expect(text.contains("| beta | **FAIL** | 1/2 |") && text.contains("| gamma | **ERROR** | 0/0 |"))
        #expect(text.contains("- `beta`: `idempotency.duplicates == 0` (actual 1)"))
        // Wall times and budgets: the run's line, each scenario's, the one over budget in bold.
        #expect(text.contains("Wall time 15.0 s; over budget: beta.\n"))
        #expect(text.contains("| 2.5 s of 10 s |") && text.contains("| **12.5 s of 10 s: over budget** |"))
        let html = HTMLReport.render([try Self.results()])
        #expect(html.contains("<td class=\"fail\">12.5 s of 10 s: over budget</td>"))
        #expect(
            JUnitWriter.render(try Self.results()).contains(
                "name=\"beta\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"12.5\""))
        // Text from files and errors is literal: no markup, no HTML, no way out of a code span.
        let hostile = "a|b\n*c* _d_ [e](f) <script>x</script> `g` \\ # ~h~ ![i](j) &amp;"
        let escaped = SummaryMarkdown.cell(hostile)
        #expect(!escaped.contains("\n") && escaped.contains("\\<script\\>"))
        #expect(!escaped.replacingOccurrences(of: "\\<", with: "").contains("<"))
        #expect(escaped.contains("\\|") && escaped.contains("\\*c\\*") && escaped.contains("\\[e\\]"))
        #expect(SummaryMarkdown.code("x == 1") == "`x == 1`")
        #expect(SummaryMarkdown.code("a `b` c") == "``a `b` c``")
        #expect(SummaryMarkdown.code("`x") == "`` `x ``")
        #expect(SummaryMarkdown.code("a\nb") == "`a b`")
        let long = String(repeating: "| a | b |\n", count: 20_000)
        let cut = SummaryMarkdown.truncated(long)
        #expect(cut.utf8.count <= SummaryMarkdown.limit && cut.hasSuffix("the full results are in the run's CSV)\n"))
    }

    @Test("hgrm: HdrHistogram's layout, monotone, and the same percentiles as the histogram")
    func hgrm() {
        var histogram = Histogram()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { histogram.record(UInt64.random(in: 1_000_000...50_000_000, using: &random)) }
        histogram.record(UInt64(900_000_000))
        let text = HgrmWriter.render(histogram, divisor: 1e6)
        #expect(text.hasPrefix("       Value     Percentile TotalCount 1/(1-Percentile)\n\n"))
        let rows = HgrmWriter.parse(text)
        #expect(rows.count > 20)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.value <= $1.value && $0.percentile <= $1.percentile })
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.count <= $1.count })
        #expect(rows.last?.percentile == 1 && rows.last?.count == 10_001 && rows.last?.value == 900)
        for quantile in [0.5, 0.9, 0.99] {
            let row = rows.first { $0.percentile >= quantile }!
            // Within the histogram's precision (0.1 %) of the value the summary reports.
            let expected = histogram.value(at: row.percentile) / 1e6
            #expect(abs(row.value - expected) <= expected * 0.001 + 0.001, "p\(quantile)")
        }
        #expect(text.contains("#[Max     =      900.000, Total count    =        10001]"))
        #expect(text.contains("#[Buckets =           35, SubBuckets     =         2048]"))
        #expect(HgrmWriter.render(Histogram(), divisor: 1e6).contains("Total count    =            0"))
    }

    @Test(
        "the sweep's report: the decision first, one scatter per environment, rates within [0, 1], names in the legend only"
    )
    func sweepReport() throws {
        let head =
            "cell,environment,max_retries,base_delay_s,max_delay_s,timeout_s,seeds,success_rate,success_rate_low,success_rate_high,latency_p99_policy_ms,amplification,peak_load,duplicates,lost,recovery_s,metastable,pareto,latency_p50_policy_ms,latency_p999_policy_ms,sends,dead_work,default,budget,standing,verdict,success_in_deadline,ok_latency_quantile_policy_ms,deadline_s"
        let cells = """
            \(head)
            r0,a,0,0.3,10,15,1,0.8,0.79,0.81,100,1,,0,0,,,1,50,150,100,0,0,none,tie,,0.8,100,30
            r3,a,3,0.3,10,15,1,0.99,0.98,1,300,1.2,,0,0,,,1,60,400,100,0,1,none,tie,,0.99,300,30
            r3-quota,a,3,0.3,10,15,1,0.99,0.98,1,300,1.2,,0,0,,,1,60,400,100,0,0,quota,tie,,0.99,300,30
            r5,a,5,0.3,10,15,1,0.98,0.97,0.99,500,1.3,,0,0,,,0,60,600,100,0,0,none,tie,,0.98,500,30
            r0,b,0,0.3,10,15,1,1,1,1,100,1,,0,0,,,1,50,150,100,0,0,none,tie,,1,100,30
            r3,b,3,0.3,10,15,1,1,1,1,120,1,,0,0,,,0,50,150,100,0,1,none,tie,,1,120,30
            r5,b,5,0.3,10,15,1,1,1,1,130,1,,0,0,,,0,50,150,100,0,0,none,tie,,1,130,30
            """
        let section = HTMLReport.sweepSection(
            name: "t", cellsCSV: cells, recommended: "r3", decision: "<p class=\"lead\">Recommended: r3</p>",
            text: "recommended: r3")
        let html = HTMLReport.sweepDocument(runID: "R", sections: [section])
        // The decision comes before the folded verdict and every chart.
        let decision = try #require(html.range(of: "Recommended: r3"))
        let firstChart = try #require(html.range(of: "<svg"))
        #expect(decision.lowerBound < firstChart.lowerBound)
        let charts = Self.svgs(html)
        #expect(charts.count == 2 && charts.allSatisfy(Self.parses))
        #expect(charts[0].contains("default: r3") && charts[0].contains("recommended: r3"))
        #expect(charts[0].contains(">quota<"))
        for chart in charts {
            // Every label of a policy sits in the legend row (y 17), never beside a marker.
            let texts = chart.components(separatedBy: "<text").dropFirst()
            for text in texts where text.contains(": r") {
                #expect(text.contains("y=\"17\""), "\(text)")
            }
            // The success axis's ticks never pass 1.
            let ticks = texts.compactMap { text -> Double? in
                guard let start = text.firstIndex(of: ">"), let end = text.firstIndex(of: "<") else { return nil }
                return Double(text[text.index(after: start)..<end])
            }
            #expect(ticks.filter { $0 < 2 }.allSatisfy { $0 <= 1 }, "\(ticks)")
        }
    }

    @Test("a run's outputs: the report beside the run CSV, JUnit and Markdown where asked, the step summary appended")
    func outputs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.fixtures, to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = folder.appendingPathComponent("step-summary.md")
        try "earlier step\n".write(to: summary, atomically: true, encoding: .utf8)
        var outputs = RunOutputs(
            junit: folder.appendingPathComponent("junit.xml").path,
            summaryMarkdown: folder.appendingPathComponent("summary.md").path)
        outputs.stepSummary = summary.path
        let report = try outputs.write(
            runCSV: folder.appendingPathComponent("20261201T000000Z-run.csv"), order: [], errors: [:]
        ).report
        #expect(report.lastPathComponent == "20261201T000000Z-report.html")
        #expect(FileManager.default.fileExists(atPath: report.path))
        #expect(Self.parses(try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)))
        let appended = try String(contentsOf: summary, encoding: .utf8)
        #expect(appended.hasPrefix("earlier step\n## frontmail-bench run 20261201T000000Z: 1 of 2 scenarios passed"))
        // Without paths, JUnit and Markdown go beside the run's CSV.
        var defaults = RunOutputs()
        defaults.stepSummary = nil
        _ = try defaults.write(
            runCSV: folder.appendingPathComponent("20261201T000000Z-run.csv"), order: [], errors: [:])
        for name in ["20261201T000000Z-junit.xml", "20261201T000000Z-summary.md"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        // A folder that cannot be written is an error naming the file.
        outputs.junit = "/proc/frontmail-no/junit.xml"
        #expect(throws: RunOutputs.OutputError.self) {
            _ = try outputs.write(
                runCSV: folder.appendingPathComponent("20261201T000000Z-run.csv"), order: [], errors: [:])
        }
    }

    @Test("an output path that is a FIFO, a folder or empty is refused and left as it was; a link is written through")
    func outputsNeverReplaceNonFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let subfolder = folder.appendingPathComponent("sub").path
        try FileManager.default.createDirectory(atPath: subfolder, withIntermediateDirectories: false)
        for path in [fifo, subfolder, ""] {
            #expect(throws: RunOutputs.OutputError.self, "\(path)") { try RunOutputs.save("x", to: path) }
            #expect(throws: RunOutputs.OutputError.self, "\(path)") { try RunOutputs.append("x", to: path) }
        }
        var status = stat()
        #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(stat(subfolder, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        // A link to a file: the file gets the text, the link stays a link.
        let file = folder.appendingPathComponent("real.md").path
        try "old".write(toFile: file, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("link.md").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        try RunOutputs.save("new", to: link)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
        // A plain file is replaced as before; a missing one is made.
        try RunOutputs.save("fresh", to: folder.appendingPathComponent("made.md").path)
        #expect(try String(contentsOfFile: folder.appendingPathComponent("made.md").path, encoding: .utf8) == "fresh")
    }

    @Test("axes near Double's limits keep a dozen finite ticks; histogram rows out of range are left out")
    func extremeAxes() {
        for (low, high) in [(0.0, 1.7e308), (-1.7e308, 1.7e308), (1e308, 1e308), (0, .infinity), (.nan, 5)] {
            let axis = ChartAxis.linear(low, high, title: "t")
            #expect(!axis.ticks.isEmpty && axis.ticks.count <= 12, "\(low)-\(high)")
            #expect(axis.ticks.allSatisfy(\.value.isFinite) && axis.min < axis.max, "\(low)-\(high)")
        }
        let series = LatencySpectrumChart.Series(name: "s", buckets: [(0, 1, 10), (1, 1.7e308, 1)])
        #expect(LatencySpectrumChart.render([series], title: "t") != nil)
        // Every send took 0 ms (virtual time, no delay): no chart with nothing inked; a line says so.
        #expect(LatencySpectrumChart.render([.init(name: "z", buckets: [(0, 0, 100)])], title: "t") == nil)
        let csv = "low_ms,high_ms,count\n0,1,10\n1,nan,1\n-1,2,3\n2,1,1\n1,2,inf\n1,2,4\n"
        #expect(LatencySpectrumChart.buckets(csv: csv).map(\.count) == [10, 4])
    }

    @Test("compare --html: every metric a bar, regressions first, the page parses")
    func compareBars() {
        func rows(_ success: Double, _ p99: Double, _ duplicates: Double) -> [SummaryRow] {
            [
                SummaryRow(
                    scenario: "s", probe: "send", metric: "success_rate", statistic: "value", value: success,
                    unit: "ratio"),
                SummaryRow(
                    scenario: "s", probe: "send", metric: "latency", statistic: "p99", value: p99, unit: "policy_ms"),
                SummaryRow(
                    scenario: "s", probe: "idempotency", metric: "duplicates", statistic: "value", value: duplicates,
                    unit: "sends"),
            ]
        }
        let comparison = Comparison(
            baseline: rows(0.99, 100, 0), current: rows(0.99, 50, 1), tolerance: 0.05, perMetric: [],
            strictOnly: false, blindControlsFail: true)
        let page = ChangeBarsChart.page(comparison, baseline: "a.csv", current: "b.csv")
        let charts = Self.svgs(page)
        #expect(charts.count == 1 && Self.parses(charts[0]))
        let regression = charts[0].range(of: "s.idempotency.duplicates.value")
        let improvement = charts[0].range(of: "s.send.latency.p99")
        #expect(regression != nil && improvement != nil)
        if let regression, let improvement { #expect(regression.lowerBound < improvement.lowerBound) }
        #expect(charts[0].contains("#d1242f") && charts[0].contains("#1a7f37") && charts[0].contains("-50.0%"))
    }

    @Test("a long run's timeline is averaged to at most 600 points a line, keeping the report small")
    func longTimeline() throws {
        var csv = "second,answered_2xx,sends_ok\n"
        for second in 0..<6000 { csv += "\(second),\(second % 2 == 0 ? 10 : 20),15\n" }
        let svg = try #require(TimelineChart.render(csv: csv, windows: [], title: "long"))
        #expect(Self.parses(svg))
        let lines = svg.components(separatedBy: "<polyline").dropFirst()
        #expect(lines.count == 2)
        for line in lines {
            let points = line.components(separatedBy: "points=\"")[1].prefix { $0 != "\"" }
            #expect(points.split(separator: " ").count <= TimelineChart.maxPoints)
        }
        // The mean of 10 and 20 alternating: a flat 15 for both lines.
        #expect(svg.utf8.count < 60_000)
    }
}
