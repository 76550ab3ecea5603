import FakeFrontmail
import Foundation

/// The files and the printed verdict of a sweep (docs/tune.md): `cells.csv`, `sanity.csv`, the
/// long-form summary rows `compare` gates on, and the recommendation.
package struct TuneReport {
    let tune: TuneFile
    let cells: [TuneCell]
    /// The outage check of every outage cell, computed once (each builds its closed form on a grid).
    let outageChecks: [OutageCheck]

    package init(tune: TuneFile, cells: [TuneCell]) {
        self.tune = tune
        self.cells = cells
        outageChecks = cells.filter { !$0.runs.isEmpty }.compactMap {
            OutageCheck($0, scenario: tune.scenario(policy: $0.policy, environment: $0.environment, seed: 0))
        }
    }

    package var measured: [TuneCell] { cells.filter { !$0.runs.isEmpty } }

    static let cellsHeader =
        "cell,environment,max_retries,base_delay_s,max_delay_s,timeout_s,seeds,success_rate,success_rate_low,success_rate_high,latency_p99_policy_ms,amplification,peak_load,duplicates,lost,recovery_s,metastable,pareto,latency_p50_policy_ms,latency_p999_policy_ms,sends,dead_work,default"

    var cellsCSV: String {
        var text = Self.cellsHeader + "\n"
        for cell in measured {
            let interval = cell.successInterval
            let policy = cell.policy
            text +=
                CSV.line([
                    policy.label, cell.environment.name, String(policy.maxRetries),
                    Self.number(policy.baseDelay.seconds),
                    Self.number(policy.maxDelay.seconds), Self.number(policy.timeout.seconds), String(cell.runs.count),
                    Self.number(cell.successRate), Self.number(interval.low), Self.number(interval.high),
                    Self.number(cell.latency(at: 0.99)), Self.number(cell.amplification), Self.number(cell.peakLoad),
                    String(cell.duplicates), String(cell.lost), Self.number(cell.recovery),
                    cell.metastable.map { $0 ? "1" : "0" } ?? "", cell.pareto ? "1" : "0",
                    Self.number(cell.latency(at: 0.5)), Self.number(cell.latency(at: 0.999)), String(cell.sends),
                    String(cell.deadWork), policy == tune.defaultPolicy ? "1" : "0",
                ]) + "\n"
        }
        return text
    }

    /// A figure as CSV: empty when not measured.
    static func number(_ value: Double) -> String { value.isFinite ? SummaryCSV.format(value) : "" }

    var checks: [BrownoutCheck] { measured.compactMap(BrownoutCheck.init) }

    static let outageHeader =
        "environment,cell,from_s,to_s,max_retries,sends,success_measured,success_analytic,success_z,agrees"

    var outageCSV: String {
        var text = Self.outageHeader + "\n"
        for check in outageChecks {
            text +=
                CSV.line([
                    check.environment, check.policy.label, Self.number(check.window.from),
                    Self.number(check.window.to), String(check.policy.maxRetries), String(check.sends),
                    Self.number(check.measuredSuccess), Self.number(check.analyticSuccess),
                    Self.number(check.successZ), check.agrees ? "1" : "0",
                ]) + "\n"
        }
        return text
    }

    static let sanityHeader =
        "environment,cell,probability,max_retries,sends,success_measured,success_analytic,success_z,attempts_measured,attempts_analytic,attempts_z,agrees"

    var sanityCSV: String {
        var text = Self.sanityHeader + "\n"
        for check in checks {
            text +=
                CSV.line([
                    check.environment, check.policy.label, Self.number(check.probability),
                    String(check.policy.maxRetries), String(check.sends), Self.number(check.measuredSuccess),
                    Self.number(check.analyticSuccess), Self.number(check.successZ),
                    Self.number(check.measuredAttempts), Self.number(check.analyticAttempts),
                    Self.number(check.attemptsZ), check.agrees ? "1" : "0",
                ]) + "\n"
        }
        return text
    }

    /// One summary row per figure per cell (`<tune>/<environment>`, probe `cell`, metric the
    /// policy's label), and the analytic check's counts.
    var rows: [SummaryRow] {
        var rows: [SummaryRow] = []
        for cell in measured {
            var builder = SummaryBuilder(scenario: "\(tune.name)/\(cell.environment.name)")
            let label = cell.policy.label
            let interval = cell.successInterval
            builder.add("cell", label, "success_rate", cell.successRate, "ratio")
            builder.add("cell", label, "success_rate_low", interval.low, "ratio")
            builder.add("cell", label, "success_rate_high", interval.high, "ratio")
            builder.add("cell", label, "latency_p50", cell.latency(at: 0.5), "policy_ms")
            builder.add("cell", label, "latency_p99", cell.latency(at: 0.99), "policy_ms")
            builder.add("cell", label, "latency_p99.9", cell.latency(at: 0.999), "policy_ms")
            builder.add("cell", label, "amplification", cell.amplification, "requests/send")
            if cell.peakLoad.isFinite { builder.add("cell", label, "peak_load", cell.peakLoad, "ratio") }
            builder.add("cell", label, "duplicates", Double(cell.duplicates), "sends")
            builder.add("cell", label, "lost", Double(cell.lost), "sends")
            builder.add("cell", label, "dead_work", Double(cell.deadWork), "requests")
            if let metastable = cell.metastable {
                builder.add("cell", label, "metastable", metastable ? 1 : 0, "runs")
                builder.add("cell", label, "recovery_s", cell.recovery, "s")
            }
            builder.add("cell", label, "sends", Double(cell.sends), "sends")
            rows += builder.rows
        }
        var sanity = SummaryBuilder(scenario: tune.name)
        sanity.add("sanity", "brownout", "checks", Double(checks.count), "cells")
        sanity.add("sanity", "brownout", "disagreements", Double(checks.filter { !$0.agrees }.count), "cells")
        let outage = outageChecks
        if !outage.isEmpty {
            sanity.add("sanity", "outage", "checks", Double(outage.count), "cells")
            sanity.add("sanity", "outage", "disagreements", Double(outage.filter { !$0.agrees }.count), "cells")
        }
        sanity.add("sanity", "correctness", "duplicates", Double(measured.reduce(0) { $0 + $1.duplicates }), "sends")
        sanity.add("sanity", "correctness", "lost", Double(measured.reduce(0) { $0 + $1.lost }), "sends")
        return rows + sanity.rows
    }

    /// Every cell had no duplicate and no lost send, and the analytic check agreed everywhere.
    package var correct: Bool {
        measured.allSatisfy { $0.duplicates == 0 && $0.lost == 0 } && checks.allSatisfy(\.agrees)
            && outageChecks.allSatisfy(\.agrees)
    }

    /// What the command prints: the recommendation beside the default, the analytic check, and
    /// any correctness failure, loudly.
    package var text: String {
        var lines: [String] = []
        let recommendation = Recommendation.choose(measured)
        let defaults = measured.filter { $0.policy == tune.defaultPolicy }
        if let recommendation {
            lines.append("recommended: \(recommendation.policy.label)")
            lines.append("  rule: \(recommendation.rule)")
            lines.append(
                "  best success in \(recommendation.competitive) and on the frontier in \(recommendation.onFrontier) of \(recommendation.environments) environments"
            )
        } else {
            lines.append("recommended: none (every policy had a duplicate, a lost send or a metastable cell)")
        }
        lines.append("default:     \(tune.defaultPolicy.label)")
        lines.append(
            "  on the frontier in \(defaults.filter(\.pareto).count) of \(Set(measured.map(\.environment.name)).count) environments"
        )
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
        lines.append(pad("environment", 24) + pad("policy", 28) + "success    p99 ms   ampl.  meta.")
        let shown = measured.filter { $0.policy == tune.defaultPolicy || $0.policy == recommendation?.policy }
        for cell in shown.sorted(by: { ($0.environment.name, $0.policy) < ($1.environment.name, $1.policy) }) {
            lines.append(
                pad(cell.environment.name, 24) + pad(cell.policy.label, 28)
                    + String(
                        format: "%7.4f %9.1f %7.3f  ", cell.successRate, cell.latency(at: 0.99), cell.amplification)
                    + (cell.metastable.map { $0 ? "yes" : "no" } ?? "-"))
        }
        let checks = self.checks
        if !checks.isEmpty {
            let worst = checks.map { max(abs($0.successZ), abs($0.attemptsZ)) }.max() ?? 0
            let disagreeing = checks.filter { !$0.agrees }
            if disagreeing.isEmpty {
                lines.append(
                    String(
                        format:
                            "analytic check: %d brownout cells agree with 1 − p^(r+1) and (1 − p^(r+1))/(1 − p) (largest |z| %.2f ≤ %.0f)",
                        checks.count, worst, BrownoutCheck.zLimit))
            } else {
                lines.append(
                    "SANITY CHECK FAILED: \(disagreeing.count) of \(checks.count) brownout cells disagree with the analytic model:"
                )
                for check in disagreeing.prefix(10) {
                    lines.append(
                        String(
                            format: "  %@ %@: success %.5f vs %.5f (z %.1f), attempts/send %.4f vs %.4f (z %.1f)",
                            check.environment, check.policy.label, check.measuredSuccess, check.analyticSuccess,
                            check.successZ, check.measuredAttempts, check.analyticAttempts, check.attemptsZ))
                }
            }
        }
        lines += outageText
        let broken = measured.filter { $0.duplicates > 0 || $0.lost > 0 }
        if !broken.isEmpty {
            lines.append("CORRECTNESS FAILED: duplicates or lost sends in \(broken.count) cells:")
            for cell in broken.prefix(10) {
                lines.append(
                    "  \(cell.environment.name) \(cell.policy.label): \(cell.duplicates) duplicates, \(cell.lost) lost")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The outage check's lines: agreement, or every disagreeing cell, loudly.
    private var outageText: [String] {
        let outage = outageChecks
        guard !outage.isEmpty else { return [] }
        let disagreeing = outage.filter { !$0.agrees }
        guard !disagreeing.isEmpty else {
            let worst = outage.map { abs($0.successZ) }.max() ?? 0
            return [
                String(
                    format:
                        "analytic check: %d outage cells agree with 1 − P(every attempt inside the window) (largest |z| %.2f ≤ %.0f)",
                    outage.count, worst, OutageCheck.zLimit)
            ]
        }
        var lines = [
            "SANITY CHECK FAILED: \(disagreeing.count) of \(outage.count) outage cells disagree with the closed form:"
        ]
        for check in disagreeing.prefix(10) {
            lines.append(
                String(
                    format: "  %@ %@: success %.5f vs %.5f (z %.1f)", check.environment, check.policy.label,
                    check.measuredSuccess, check.analyticSuccess, check.successZ))
        }
        return lines
    }
}
