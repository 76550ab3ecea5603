import FakeFrontmail
import Foundation
import LoadKit

/// `frontmail-bench compare`: the regression gate.
public enum CompareCommand {
    public static let usage = """
        usage: frontmail-bench compare BASELINE.csv CURRENT.csv [--tolerance 5%] [--tolerance METRIC=PCT]... [--strict-only] [--controls fail|warn]
                                       [--html FILE] [--summary-md FILE]

        Compares two summary CSVs (docs/csv.md) metric by metric and prints a Markdown table of the
        changes. A tolerance is a factor: 5% allows a metric to be up to 1.05x worse (slower, larger,
        lower throughput) before it is a regression. Each metric has a polarity (higher or lower is better, or not judged); correctness
        metrics and allocation counts have tolerance 0 unless a METRIC=PCT says otherwise. METRIC
        matches consecutive parts of scenario.probe.metric.statistic (p99_us, send.latency, encoder.small_form).
        --strict-only judges only the strict metrics (correctness and allocation counts), not timings.

        Benchmarks are judged by their same-run ratios (ratio_vs_*): when a run wrote the ratio's
        spread (spread_vs_*), its tolerance is 3x the larger of the two runs' spreads (at least 2%),
        and the table of ratios shows the smallest slowdown the gate could detect. A positive control
        (a workload made slower by a known factor, *_control) that the gate would not flag fails the
        comparison (--controls warn: a warning instead, for a benchmark whose noise sits near its control). Absolute benchmark timings (ops_per_s, p50_us, ...) only warn, beyond 100%.
        A ratio whose reference workload ran over 25% faster or slower than in the baseline comes from
        another machine: printed as "other machine", not judged (nor its control).
        docs/benchmarks.md explains it all.

        --html FILE writes the comparison as a page with the change of every metric as a bar,
        regressions first; --summary-md FILE writes the Markdown table to a file (also appended to
        $GITHUB_STEP_SUMMARY when it is set, at most 64 KB).

        \(ExitTable.help("compare"))
        """

    public static func run(_ arguments: [String]) -> ExitCode {
        let command = CommandArguments(
            "compare", arguments,
            spec: Arguments.Spec(
                options: ["tolerance", "controls", "html", "summary-md"], flags: ["strict-only"],
                repeatable: ["tolerance"]),
            usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        guard parsed.positionals.count == 2 else {
            printError("compare: give a baseline and a current CSV\n\n\(usage)")
            return .usage
        }
        let tolerance: Double
        let perMetric: [(pattern: String, tolerance: Double)]
        let blindControlsFail: Bool
        switch tolerances(parsed) {
        case .success(let read): (tolerance, perMetric, blindControlsFail) = read
        case .failure(let exit): return exit.code
        }
        let files = parsed.positionals
        if let refused = refuseOutputsNamingInputs(
            "compare", ["html", "summary-md"].map { ($0, parsed.value($0)) }, inputs: files)
        {
            return refused
        }
        guard let parsedFiles = readSummaries(files) else { return .dataError }
        let comparison = Comparison(
            baseline: parsedFiles[0], current: parsedFiles[1], tolerance: tolerance, perMetric: perMetric,
            strictOnly: parsed.flag("strict-only"), blindControlsFail: blindControlsFail)
        print(comparison.markdown(), terminator: "")
        do {
            if let html = parsed.value("html") {
                try RunOutputs.save(
                    ChangeBarsChart.page(comparison, baseline: files[0], current: files[1]), to: html)
            }
            let markdown = SummaryMarkdown.truncated(
                "## frontmail-bench compare\n\nbaseline \(MarkdownText.code(files[0])), current \(MarkdownText.code(files[1]))\n\n"
                    + comparison.markdown())
            if let summary = parsed.value("summary-md") { try RunOutputs.save(markdown, to: summary) }
            if let step = RunOutputs().stepSummary { try RunOutputs.append(markdown, to: step) }
        } catch {
            printError("compare: \(error)")
            return .software
        }
        if !comparison.regressions.isEmpty { return .regression }
        if !comparison.improvements.isEmpty { return .improvement }
        return .success
    }

    /// `--tolerance` (the global one and each METRIC=PCT) and `--controls`.
    static func tolerances(_ parsed: Arguments) -> Result<
        (tolerance: Double, perMetric: [(pattern: String, tolerance: Double)], blindControlsFail: Bool), Exit
    > {
        var tolerance = 0.05
        var perMetric: [(pattern: String, tolerance: Double)] = []
        for value in parsed.all("tolerance") {
            if let equals = value.firstIndex(of: "=") {
                guard equals != value.startIndex else {
                    printError("compare: --tolerance \(value): the METRIC before '=' is empty (write METRIC=PCT)")
                    return .failure(Exit(code: .usage))
                }
                guard let percent = parsePercent(String(value[value.index(after: equals)...])) else {
                    printError("compare: --tolerance \(value): write METRIC=PCT, like p99_us=20%")
                    return .failure(Exit(code: .usage))
                }
                perMetric.append((String(value[..<equals]), percent))
            } else {
                guard let percent = parsePercent(value) else {
                    printError("compare: --tolerance \(value): write a percentage, like 5%")
                    return .failure(Exit(code: .usage))
                }
                tolerance = percent
            }
        }
        var blindControlsFail = true
        switch parsed.value("controls") {
        case nil, "fail": break
        case "warn": blindControlsFail = false
        case let other?:
            printError("compare: --controls \(other): write fail or warn")
            return .failure(Exit(code: .usage))
        }
        return .success((tolerance, perMetric, blindControlsFail))
    }

    /// `5%`, `5`, `0.5%` → 0.05, 0.05, 0.005.
    static func parsePercent(_ text: String) -> Double? {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        return value / 100
    }
}
