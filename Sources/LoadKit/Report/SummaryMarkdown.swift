import Foundation

/// A run's verdicts as a Markdown table for a CI job summary (GitHub's `GITHUB_STEP_SUMMARY`):
/// one row per scenario with its key figures, then every failed assertion; at most `limit` bytes.
package enum SummaryMarkdown {
    static let limit = 64 * 1024

    package static func render(_ run: RunResults) -> String {
        let passed = run.scenarios.filter(\.passed).count
        var text = "## frontmail-bench run \(run.runID): \(passed) of \(run.scenarios.count) scenarios passed\n\n"
        text += "| scenario | verdict | assertions | success rate | p99 (policy ms) | duplicates | lost |\n"
        text += "|---|---|---|---|---|---|---|\n"
        var details = ""
        for scenario in run.scenarios {
            let verdict = scenario.error != nil ? "ERROR" : scenario.passed ? "PASS" : "FAIL"
            let held = scenario.checks.filter(\.passed).count
            let cells = [
                cell(scenario.name), "**\(verdict)**", "\(held)/\(scenario.checks.count)",
                figure(scenario.value(named: "send.success_rate"), places: 4),
                figure(scenario.value(named: "send.latency.p99"), places: 1),
                figure(scenario.value(named: "idempotency.duplicates"), places: 0),
                figure(scenario.value(named: "idempotency.lost"), places: 0),
            ]
            text += "| " + cells.joined(separator: " | ") + " |\n"
            if let error = scenario.error {
                details += "- `\(cell(scenario.name))` could not run: \(cell(error))\n"
            }
            for check in scenario.failures {
                details += "- `\(cell(scenario.name))`: `\(cell(check.assertion))` (actual \(cell(check.actual)))\n"
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

    /// Text safe inside a table cell (no pipes or newlines).
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    static func figure(_ value: Double?, places: Int) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.\(places)f", value)
    }
}
