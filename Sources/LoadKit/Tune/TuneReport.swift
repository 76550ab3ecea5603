import FakeFrontmail
import Foundation

/// The files and the printed verdict of a sweep (docs/tune.md): `cells.csv`, `sanity.csv`, the
/// long-form summary rows `compare` gates on, and the recommendation.
package struct TuneReport {
    let tune: TuneFile
    let cells: [TuneCell]
    /// The outage check of every outage cell, computed once (each builds its closed form on a grid).
    let outageChecks: [OutageCheck]
    /// The recommendation rule's decision, with its stability (computed once: it resamples).
    let decision: TuneRule.Decision
    let regret: [Regret]
    let map: MetastabilityMap?

    package init(tune: TuneFile, cells: [TuneCell]) {
        self.tune = tune
        self.cells = cells
        let measured = cells.filter { !$0.runs.isEmpty }
        outageChecks = measured.compactMap {
            OutageCheck($0, scenario: tune.scenario(policy: $0.policy, environment: $0.environment, seed: 0))
        }
        decision = TuneRule.decide(measured)
        regret = Regret.table(measured, defaultPolicy: tune.defaultPolicy, recommended: decision.recommended)
        map = MetastabilityMap(measured)
    }

    /// The recommended policy's label (nil: no single winner).
    var recommendedLabel: String? { decision.recommended?.label }

    var regretCSV: String { ([Regret.header] + regret.map(\.csvLine)).joined(separator: "\n") + "\n" }

    package var measured: [TuneCell] { cells.filter { !$0.runs.isEmpty } }

    static let cellsHeader = ResultFile.TuneCellColumn.header

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
                    String(cell.deadWork), policy == tune.defaultPolicy ? "1" : "0", policy.budget.text,
                    decision.standings[policy]?[cell.environment.name]?.rawValue ?? "excluded",
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
            var recorder = MetricRecorder(scenario: "\(tune.name)/\(cell.environment.name)")
            let label = cell.policy.label
            let interval = cell.successInterval
            var figures: [(CellStatistic, Double)] = [
                (.successRate, cell.successRate), (.successRateLow, interval.low), (.successRateHigh, interval.high),
                (.latencyP50, cell.latency(at: 0.5)), (.latencyP99, cell.latency(at: 0.99)),
                (.latencyP999, cell.latency(at: 0.999)), (.amplification, cell.amplification),
            ]
            if cell.peakLoad.isFinite { figures.append((.peakLoad, cell.peakLoad)) }
            figures += [
                (.duplicates, Double(cell.duplicates)), (.lost, Double(cell.lost)), (.deadWork, Double(cell.deadWork)),
            ]
            if let metastable = cell.metastable {
                figures += [(.metastable, metastable ? 1 : 0), (.recovery, cell.recovery)]
            }
            figures.append((.sends, Double(cell.sends)))
            for (statistic, value) in figures { recorder.record(.cell(statistic), label: label, value) }
            rows += recorder.rows
        }
        var sanity = MetricRecorder(scenario: tune.name)
        sanity.record(.sanityBrownoutChecks, Double(checks.count))
        sanity.record(.sanityBrownoutDisagreements, Double(checks.filter { !$0.agrees }.count))
        let outage = outageChecks
        if !outage.isEmpty {
            sanity.record(.sanityOutageChecks, Double(outage.count))
            sanity.record(.sanityOutageDisagreements, Double(outage.filter { !$0.agrees }.count))
        }
        sanity.record(.sanityDuplicates, Double(measured.reduce(0) { $0 + $1.duplicates }))
        sanity.record(.sanityLost, Double(measured.reduce(0) { $0 + $1.lost }))
        var rule = MetricRecorder(scenario: tune.name)
        rule.record(.ruleSingleWinner, decision.recommended == nil ? 0 : 1)
        rule.record(.ruleTied, Double(decision.outcome.tied.count))
        if decision.stability.checked {
            rule.record(.ruleBootstrapShare, decision.stability.share)
            rule.record(.ruleLeaveOneOutChanges, Double(decision.stability.leaveOneOut.count))
        }
        var regretRows: [SummaryRow] = []
        for entry in regret {
            var recorder = MetricRecorder(scenario: "\(tune.name)/\(entry.environment)")
            let against = entry.against.rawValue
            let figures: [(RegretStatistic, Double)] = [
                (.sendsLostPer10k, entry.sendsLostPer10k), (.extraP99, entry.extraP99),
                (.extraServerLoad, entry.extraServerLoadPercent), (.extraDeadWorkPer10k, entry.extraDeadWorkPer10k),
            ]
            for (statistic, value) in figures {
                recorder.record(.regret(statistic, against: against), label: tune.defaultPolicy.label, value)
            }
            regretRows += recorder.rows
        }
        return rows + sanity.rows + rule.rows + regretRows
    }

    /// Every cell had no duplicate and no lost send, and the analytic check agreed everywhere.
    package var correct: Bool {
        measured.allSatisfy { $0.duplicates == 0 && $0.lost == 0 } && checks.allSatisfy(\.agrees)
            && outageChecks.allSatisfy(\.agrees)
    }

    /// What the command prints: the recommendation (or the tied set) beside the default, the
    /// default's regret, the metastability map, the analytic checks, and any correctness failure.
    package var text: String {
        var lines: [String] = []
        lines += recommendationText
        lines += regretText
        if let map {
            lines += map.text
            let boundary = map.boundary(tune.defaultPolicy)
            if !boundary.isEmpty {
                lines.append(
                    "  the default stops recovering at: "
                        + boundary.map { entry in
                            String(format: "load %.2f: ", entry.load)
                                + (entry.drop.map { String(format: "a %gs drop", $0) }
                                    ?? "never (recovers from every drop)")
                        }.joined(separator: "; "))
            }
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

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// The recommendation, how it was decided and how stable it is; or the tied set and what
    /// separates it.
    private var recommendationText: [String] {
        var lines: [String] = []
        let outcome = decision.outcome
        let stability = decision.stability
        let environments = Set(measured.map(\.environment.name)).count
        if let winner = decision.recommended {
            lines.append("recommended: \(winner.label)")
            lines.append("  decided by: \(outcome.decidedBy)")
        } else if let winner = outcome.winner {
            lines.append("recommended: no single winner (\(winner.label) wins on all seeds pooled, but not stably)")
        } else if outcome.tied.isEmpty {
            lines.append("recommended: none (\(outcome.decidedBy))")
        } else {
            lines.append("recommended: no single winner: \(outcome.tied.count) policies tie \(outcome.decidedBy)")
        }
        if stability.checked, outcome.winner != nil {
            let moved = stability.leaveOneOut.map {
                "without seed \($0.seed): \($0.winner?.label ?? "no single winner")"
            }
            lines.append(
                String(
                    format:
                        "  stability: %d of %d bootstrap resamples of the %d seeds agree (%.1f %%, at least %.0f %% required)",
                    stability.agreeing, stability.resamples, stability.seeds, stability.share * 100,
                    TuneRule.stableShare * 100)
                    + (moved.isEmpty ? "; leaving out any one seed keeps it" : "; " + moved.joined(separator: "; ")))
        } else if outcome.winner != nil {
            lines.append("  stability: not checked (one seed; give seeds ≥ 2)")
        }
        if decision.recommended == nil {
            var tied = Set(outcome.tied)
            for rival in stability.rivals.keys { tied.insert(rival) }
            if let winner = outcome.winner { tied.insert(winner) }
            if !tied.isEmpty {
                lines.append(
                    "  tied set (what the rule narrowed by: success lost per 10,000 against each environment's best, mean amplification and worst p99 where they say something):"
                )
                let byPolicy = Dictionary(grouping: measured, by: \.policy)
                let best = TuneRule.best(TuneRule.candidates(measured))
                for policy in tied.sorted() {
                    // The figures the rule narrowed by, as it computed them.
                    let cells = byPolicy[policy] ?? []
                    let lost = TuneRule.sendsLost(cells, best: best)
                    let load = TuneRule.serverLoad(cells, dropped: decision.dropped)
                    let p99 = TuneRule.worstP99(cells, dropped: decision.dropped)
                    let wins = stability.rivals[policy].map { ", wins \($0) resamples" } ?? ""
                    lines.append(
                        "    " + Self.pad(policy.label, 36)
                            + String(
                                format: "%8.1f lost/10k  %6.3f req/send  %8.1f ms", lost, load, p99) + wins)
                }
            }
        }
        lines.append("  rule: \(Self.ruleText)")
        for (name, dropped) in decision.dropped.sorted(by: { $0.key < $1.key }) {
            for (objective, reason) in dropped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lines.append("  objective dropped in \(name): \(objective.rawValue) (\(reason))")
            }
        }
        let standings = decision.standings[tune.defaultPolicy]?.values.map { $0 } ?? []
        lines.append("default:     \(tune.defaultPolicy.label)")
        if standings.isEmpty {
            lines.append("  excluded (a duplicate, a lost send or a metastable cell, or not measured everywhere)")
        } else {
            lines.append(
                "  ties the best success in \(standings.filter { $0 == .tie }.count), is worse in \(standings.filter { $0 == .worse }.count), unclear in \(standings.filter { $0 == .unclear }.count) of \(environments) environments"
            )
        }
        return lines
    }

    static let ruleText =
        "success within 0.1 percentage point of each environment's best is a tie, further below is worse when a one-sided two-proportion z-test on pooled counts rejects at α = 0.01; fewest worse, then most ties; then sends lost, server load (1 %), dead work (1 %), worst p99 (5 %); stable when every leave-one-seed-out decision and ≥ 95 % of 200 bootstrap resamples agree; policies with a duplicate, a lost send or a metastable cell are excluded"

    /// The regret table: what the default costs in each environment.
    private var regretText: [String] {
        guard !regret.isEmpty else {
            return measured.isEmpty
                ? [] : ["regret of the default: not computed (the default or every candidate is excluded)"]
        }
        var lines = [
            "regret of the default (positive: the default is worse)",
            Self.pad("environment", 22) + Self.pad("against", 12) + Self.pad("policy", 34)
                + "lost/10k  extra p99 ms  extra load %  extra dead/10k",
        ]
        for entry in regret {
            lines.append(
                Self.pad(entry.environment, 22) + Self.pad(entry.against.rawValue, 12)
                    + Self.pad(entry.other.policy.label, 34)
                    + String(
                        format: "%8.1f  %12.1f  %12.1f  %14.1f", entry.sendsLostPer10k, entry.extraP99,
                        entry.extraServerLoadPercent, entry.extraDeadWorkPer10k))
        }
        return lines
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
