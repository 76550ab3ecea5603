import Foundation

/// The decision as the report shows it first: the objective, the recommendation and the storms'
/// verdict on it, the default's regret with every column, the decision under each deadline.
extension TuneReport {
    var decisionHTML: String {
        let escape = XML.escape
        let number = { (value: Double, format: String) -> String in
            value.isFinite ? String(format: format, value) : "–"
        }
        var html = "<p class=\"lead\">"
        html +=
            tune.objective.deadline.map {
                "Deadline <b>\(escape(PolicyPoint.short($0)))</b>: a send counts when it ends ok within it of when it was due; "
            } ?? "No deadline: a send counts when it ends ok; "
        html += String(format: "then the latency of those at %g %%.<br>\n", tune.objective.quantile * 100)
        if let winner = decision.recommended {
            html +=
                "Recommended: <code><b>\(escape(winner.label))</b></code> (decided by \(escape(decision.outcome.decidedBy))"
            if decision.stability.checked {
                html += String(format: "; %.0f %% of bootstrap resamples agree", decision.stability.share * 100)
            }
            html += ").<br>\n"
            for verdict in stormsText(winner) { html += "Storms: \(escape(verdict)).<br>\n" }
        } else if let withheld = decision.withheld {
            html += "Recommended: none (\(escape(withheld)))"
            html +=
                decision.outcome.winner.map { "; the rule's pick over these cells: <code>\(escape($0.label))</code>" }
                ?? ""
            html += ".<br>\n"
        } else if decision.outcome.tied.isEmpty {
            html += "Recommended: none (\(escape(decision.outcome.decidedBy))).<br>\n"
        } else {
            html +=
                "Recommended: no single winner (\(decision.outcome.tied.count) tied: \(escape(decision.outcome.decidedBy))).<br>\n"
        }
        if let joint, !excluded.isEmpty || joint.screens.contains(where: { !$0.screened.isEmpty }) {
            html +=
                "\(excluded.count) policies excluded by the storms (metastable or overloaded where another recovers).<br>\n"
        }
        html += "Default: <code>\(escape(tune.defaultPolicy.label))</code>"
        if excluded.contains(tune.defaultPolicy) {
            html += ", excluded by the storms: " + escape(stormsText(tune.defaultPolicy).joined(separator: "; "))
        }
        html += ".</p>\n"
        let rows = regret.filter { $0.against == .recommended }
        if !rows.isEmpty {
            html += "<table><tr><th>environment</th><th>default ok</th><th>recommended ok</th><th>lost /10k</th>"
            html += "<th>extra p99 ms</th><th>extra load %</th><th>extra dead /10k</th></tr>\n"
            for row in rows {
                html += "<tr><td>\(escape(row.environment))</td>"
                html +=
                    [
                        number(row.defaultCell.userSuccess, "%.4f"), number(row.other.userSuccess, "%.4f"),
                        number(row.sendsLostPer10k, "%.1f"), number(row.extraP99, "%.0f"),
                        number(row.extraServerLoadPercent, "%.1f"), number(row.extraDeadWorkPer10k, "%.1f"),
                    ].map { "<td>\($0)</td>" }.joined() + "</tr>\n"
            }
            html +=
                "</table>\n<p>The default against the recommendation, per environment (positive: the default is worse; success and p99 are the user's: within the deadline).</p>\n"
        }
        if alternatives.count > 1 {
            html += "<table><tr><th>deadline</th><th>recommended</th><th>default's largest loss</th></tr>\n"
            for alternative in alternatives {
                let worst = alternative.worstLoss
                let mark = alternative.objective.deadline == tune.objective.deadline ? " (the file's)" : ""
                html += "<tr><td>\(escape(alternative.objective.deadlineText + mark))</td><td>"
                html +=
                    (alternative.decision.recommended.map { "<code>\(escape($0.label))</code>" }
                        ?? escape(Self.noWinner(alternative.decision))) + "</td><td>"
                html +=
                    worst.map {
                        escape(String(format: "%.1f /10k in %@", $0.sendsLostPer10k, $0.environment))
                    } ?? "–"
                html += "</td></tr>\n"
            }
            html += "</table>\n"
        }
        return html
    }
}
