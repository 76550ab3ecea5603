import FakeFrontmail
import Foundation

/// The sweep's verdict as printed: the cells, the recommendation and why, the regret, the checks.
extension TuneReport {
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
        lines += deadlinesText
        lines += regretText
        if let map {
            lines += map.text
            let boundary = map.boundary(tune.defaultPolicy)
            if !boundary.isEmpty {
                lines.append(
                    "  the default stops recovering at: "
                        + boundary.map { entry in
                            String(format: "load %.2f", entry.load)
                                + (map.scaled ? " at \(TuneRule.ScalePick.clients(entry.clients ?? 1)): " : ": ")
                                + (entry.drop.map { String(format: "a %gs drop", $0) }
                                    ?? "never (recovers from every drop)")
                        }.joined(separator: "; "))
            }
        }
        let checks = self.checks
        if !checks.isEmpty {
            let worst = checks.map { max(abs($0.success.z), abs($0.attempts.z)) }.max() ?? 0
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
                            check.environment, check.policy.label, check.success.measured, check.success.analytic,
                            check.success.z, check.attempts.measured, check.attempts.analytic, check.attempts.z))
                }
            }
        }
        lines += outageText
        let drained = measured.filter { $0.runs.contains { $0.drainLimited != nil } }
        if !drained.isEmpty {
            let cut = drained.filter { $0.runs.contains { $0.drainLimited == true } }
            lines.append(
                "dead work: counted until each server's queue was empty, at most \(TimeSeries.drainLimit) s after the last send ("
                    + (cut.isEmpty
                        ? "no queue outlasted that)"
                        : "\(cut.count) cells' queues outlasted it and are counted to it: \(cut.prefix(5).map { "\($0.environment.name) \($0.policy.label)" }.joined(separator: ", ")))")
            )
        }
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
        lines.append(
            "objective: "
                + (tune.objective.deadline.map {
                    "a send counts when it ends ok within \(PolicyPoint.short($0)) of when it was due (the user's deadline)"
                } ?? "a send counts when it ends ok (no deadline)")
                + String(format: "; then the latency of those at %g %%", tune.objective.quantile * 100))
        if let winner = decision.recommended {
            lines.append("recommended: \(winner.label)")
            lines.append("  decided by: \(outcome.decidedBy)")
            for verdict in stormsText(winner) { lines.append("  storms: \(verdict)") }
        } else if let withheld = decision.withheld {
            lines.append("recommended: none (\(withheld); run the files without --quick)")
            if let pick = outcome.winner {
                lines.append("  the rule's pick over these cells, not a recommendation: \(pick.label)")
                lines.append("  decided by: \(outcome.decidedBy)")
                for verdict in stormsText(pick) { lines.append("  storms: \(verdict)") }
            } else {
                lines.append("  the rule over these cells: \(Self.noWinner(decision))")
            }
        } else if let winner = outcome.winner {
            lines.append("recommended: no single winner (\(winner.label) wins on all seeds pooled, but not stably)")
        } else if outcome.tied.isEmpty {
            lines.append("recommended: none (\(outcome.decidedBy))")
        } else {
            lines.append("recommended: no single winner: \(outcome.tied.count) policies tie \(outcome.decidedBy)")
        }
        if !decision.scales.isEmpty {
            lines.append("  at each scale (decided on its cells alone; a recommendation must hold at every one):")
            for pick in decision.scales { lines.append("    \(pick.text)") }
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
        // A withheld pick is not a tie: the tied set is shown only when the rule found none.
        if decision.recommended == nil, decision.withheld == nil || outcome.winner == nil {
            var tied = Set(outcome.tied)
            for rival in stability.rivals.keys { tied.insert(rival) }
            if let winner = outcome.winner { tied.insert(winner) }
            if !tied.isEmpty {
                lines.append(
                    "  tied set (what the rule narrowed by: sends lost per 10,000 against each environment's best, the in-time latency over the tied set's fastest (geometric mean), mean amplification, dead work per 10,000):"
                )
                let byPolicy = Dictionary(grouping: measured, by: \.policy)
                let best = TuneRule.best(TuneRule.candidates(measured, excluded: excluded))
                var lowest: [String: Double] = [:]
                for cell in tied.flatMap({ byPolicy[$0] ?? [] }) where cell.okLatency.isFinite {
                    lowest[cell.environment.name] = min(lowest[cell.environment.name] ?? .infinity, cell.okLatency)
                }
                for policy in tied.sorted() {
                    // The figures the rule narrowed by, as it computed them.
                    let cells = byPolicy[policy] ?? []
                    let lost = TuneRule.sendsLost(cells, best: best)
                    let stretch = TuneRule.latencyStretch(cells, lowest: lowest, dropped: decision.dropped)
                    let load = TuneRule.serverLoad(cells, dropped: decision.dropped)
                    let dead = TuneRule.deadWork(cells)
                    let wins = stability.rivals[policy].map { ", wins \($0) resamples" } ?? ""
                    lines.append(
                        "    " + Self.pad(policy.label, 36)
                            + String(
                                format: "%8.1f lost/10k  %5.2f× latency  %6.3f req/send  %8.1f dead/10k", lost, stretch,
                                load, dead) + wins)
                }
            }
        }
        if let joint {
            let screened = joint.screens.reduce(0) { $0 + $1.screened.count }
            lines.append(
                "  storms screen: \(excluded.count) policies excluded as metastable or overloaded where another recovers; \(screened) policies run in the storms for this decision"
                    + (joint.complete ? "" : " (interrupted: the exclusions are incomplete)"))
        }
        lines.append("  rule: \(Self.ruleText)")
        let weighted = tune.environments.filter { $0.weight != nil }
        if !weighted.isEmpty {
            lines.append(
                "  weights (each environment counts its weight in every sum over environments; 1 where not given): "
                    + weighted.map { "\($0.name) \(TuneReport.number($0.weight ?? 1))" }.joined(separator: ", "))
        }
        for (name, dropped) in decision.dropped.sorted(by: { $0.key < $1.key }) {
            for (objective, reason) in dropped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lines.append("  objective dropped in \(name): \(objective.rawValue) (\(reason))")
            }
        }
        let standings = decision.standings[tune.defaultPolicy]?.values.map { $0 } ?? []
        lines.append("default:     \(tune.defaultPolicy.label)")
        if excluded.contains(tune.defaultPolicy) {
            for verdict in stormsText(tune.defaultPolicy) { lines.append("  excluded by the storms: \(verdict)") }
        } else if standings.isEmpty {
            lines.append("  excluded (a duplicate, a lost send or a metastable cell, or not measured everywhere)")
        } else {
            lines.append(
                "  ties the best success in \(standings.filter { $0 == .tie }.count), is worse in \(standings.filter { $0 == .worse }.count), unclear in \(standings.filter { $0 == .unclear }.count) of \(environments) environments"
            )
        }
        return lines
    }

    static let ruleText =
        "success is a send ok within the deadline; within 0.1 percentage point of each environment's best is a tie, further below is worse when a one-sided two-proportion z-test on pooled counts rejects at α = 0.01; fewest worse, then most ties; then sends lost, the latency of the sends in time (10 %), server load (1 %), dead work (1 %); stable when every leave-one-seed-out decision and ≥ 95 % of 200 bootstrap resamples agree; policies with a duplicate, a lost send or a metastable cell (here, or in the storms where another policy recovers) are excluded"

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
            let worst = outage.map { abs($0.success.z) }.max() ?? 0
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
                    check.success.measured, check.success.analytic, check.success.z))
        }
        return lines
    }
}
