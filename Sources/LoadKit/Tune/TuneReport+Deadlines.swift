import Foundation

/// The decision under each compared deadline (`deadlines.csv` and its lines), and the storms'
/// verdict beside a recommendation.
extension TuneReport {
    static let deadlinesHeader =
        "deadline_s,quantile,recommended,pooled_winner,tied,decided_by,bootstrap_share,excluded_by_storms,storms,default_storms,environment,default_success,recommended_success,sends_lost_per_10k,default_latency_policy_ms,recommended_latency_policy_ms,extra_latency_policy_ms"

    /// deadlines.csv: per objective, its recommendation and, per environment, the default against
    /// it (success within that deadline, latency at the quantile of the sends in time).
    var deadlinesCSV: String {
        var text = Self.deadlinesHeader + "\n"
        for alternative in alternatives {
            let objective = alternative.objective
            let recommended = alternative.decision.recommended
            let outcome = alternative.decision.outcome
            let tied: String = outcome.tied.map(\.label).joined(separator: " ")
            let storms: String = recommended.map { stormsText($0).joined(separator: "; ") } ?? ""
            let head: [String] = [
                objective.deadline.map { Self.number($0.seconds) } ?? "", Self.number(objective.quantile),
                recommended?.label ?? "", outcome.winner?.label ?? "", tied, outcome.decidedBy,
                alternative.decision.stability.checked ? Self.number(alternative.decision.stability.share) : "",
                String(joint?.excluded(for: objective).count ?? 0), storms,
                stormsText(tune.defaultPolicy).joined(separator: "; "),
            ]
            let rows = alternative.againstRecommended
            if rows.isEmpty { text += CSV.line(head + Array(repeating: "", count: 7)) + "\n" }
            for row in rows {
                text +=
                    CSV.line(
                        head + [
                            row.environment, Self.number(row.defaultCell.userSuccess),
                            Self.number(row.other.userSuccess), Self.number(row.sendsLostPer10k),
                            Self.number(row.defaultCell.okLatency), Self.number(row.other.okLatency),
                            Self.number(row.extraP99),
                        ]) + "\n"
            }
        }
        return text
    }

    /// Why a decision recommends nothing: the pooled winner that is not stable, the tied set, or none.
    static func noWinner(_ decision: TuneRule.Decision) -> String {
        let outcome = decision.outcome
        if decision.withheld != nil, let winner = outcome.winner {
            return "none (a quick sweep): the rule's pick over these cells is \(winner.label)"
        }
        if let winner = outcome.winner {
            return String(
                format: "no stable winner: %@ wins on every seed pooled (by %@) but only %.0f %% of resamples",
                winner.label, outcome.decidedBy, decision.stability.share * 100)
        }
        if outcome.tied.isEmpty { return "none (\(outcome.decidedBy))" }
        return
            "no single winner: \(outcome.tied.count) tie (\(outcome.tied.prefix(4).map(\.label).joined(separator: ", "))\(outcome.tied.count > 4 ? ", …" : ""))"
    }

    /// The storms' verdict on `policy` (empty when no storms sweep was given).
    func stormsText(_ policy: PolicyPoint) -> [String] { joint?.verdicts(of: policy) ?? [] }

    /// The lines of the deadline table: one per objective.
    var deadlinesText: [String] {
        guard alternatives.count > 1 else { return [] }
        var lines = [
            "by deadline (* the file's; the same runs; a send counts when it ends ok within it; the default's largest loss against the recommendation):"
        ]
        for alternative in alternatives {
            let mark = alternative.objective.deadline == tune.objective.deadline ? " *" : ""
            let deadline = Self.pad("  " + alternative.objective.deadlineText + mark, 10)
            guard let recommended = alternative.decision.recommended else {
                lines.append(deadline + Self.noWinner(alternative.decision))
                continue
            }
            let loss =
                alternative.worstLoss.map {
                    String(
                        format: "default loses %.1f/10k in %@ (p99 %+.0f ms there)", $0.sendsLostPer10k, $0.environment,
                        $0.extraP99)
                } ?? ""
            lines.append(deadline + Self.pad(recommended.label, 36) + loss)
        }
        return lines
    }
}
