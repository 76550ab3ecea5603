import Foundation

/// A run's verdicts as a Markdown table for a CI job summary (GitHub's `GITHUB_STEP_SUMMARY`):
/// one row per scenario with its key figures, then every failed assertion; at most `limit` bytes.
package enum SummaryMarkdown {
    static let limit = 64 * 1024

    package static func render(_ run: RunResults) -> String {
        let passed = run.scenarios.filter(\.passed).count
        var text = "## frontmail-bench run \(run.runID): \(passed) of \(run.scenarios.count) scenarios passed\n\n"
        if let wall = run.wallSummary { text += cell(wall.prefix(1).uppercased() + wall.dropFirst()) + ".\n\n" }
        text += "| scenario | verdict | assertions | success rate | p99 (policy ms) | duplicates | lost | wall time |\n"
        text += "|---|---|---|---|---|---|---|---|\n"
        var details = ""
        for scenario in run.scenarios {
            let verdict =
                scenario.error.map { ChildCrash.summaryLine(of: $0) == nil ? "ERROR" : "CRASH" }
                ?? (scenario.passed ? "PASS" : "FAIL")
            let held = scenario.checks.filter(\.passed).count
            let cells = [
                cell(scenario.name), "**\(verdict)**", "\(held)/\(scenario.checks.count)",
                figure(scenario.value(.sendSuccessRate), places: 4),
                figure(scenario.value(HistogramKey.sendLatency.key("p99")), places: 1),
                figure(scenario.value(.idempotencyDuplicates), places: 0),
                figure(scenario.value(.idempotencyLost), places: 0),
                scenario.wallText.map { scenario.overBudget ? "**\(cell($0))**" : cell($0) } ?? "–",
            ]
            text += "| " + cells.joined(separator: " | ") + " |\n"
            if let error = scenario.error {
                if let summary = ChildCrash.summaryLine(of: error) {
                    details += "- \(code(scenario.name)) \(cell(summary)); the backtrace is in the report\n"
                } else {
                    details += "- \(code(scenario.name)) could not run: \(cell(error))\n"
                }
            }
            for check in scenario.failures {
                details += "- \(code(scenario.name)): \(code(check.assertion)) (actual \(cell(check.actual)))\n"
            }
        }
        if !details.isEmpty { text += "\n### Failed\n\n" + details }
        return truncated(text)
    }

    /// Cut at a line boundary below the limit, saying so.
    package static func truncated(_ text: String) -> String {
        guard text.utf8.count > limit else { return text }
        let note = "\n… (cut at \(limit / 1024) KB; the full results are in the run's CSV)\n"
        var kept = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if kept.utf8.count + line.utf8.count + 1 + note.utf8.count > limit { break }
            kept += line + "\n"
        }
        return kept + note
    }

    static func cell(_ text: String) -> String { MarkdownText.cell(text) }
    static func code(_ text: String) -> String { MarkdownText.code(text) }

    static func figure(_ value: Double?, places: Int) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.\(places)f", value)
    }
}
