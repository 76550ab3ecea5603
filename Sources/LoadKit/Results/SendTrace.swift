import FakeFrontmail
import Foundation

/// One logical send's story, for debugging a replayed run: what the client recorded (intended
/// start, outcome, attempts) and every attempt the server saw for it (arrival and answer on the
/// run's clock, status, the rule that matched, the action, whether it took effect).
enum SendTrace {
    /// The trace of send `number` (its number in the run), or a line saying there is none.
    static func text(number: Int, history: History?, ledger: AttemptLedger?) -> String {
        guard let history, let record = history.records.first(where: { history.number($0.sendID) == number }) else {
            return "trace: no send \(number) in this run"
        }
        var lines = [
            "trace of send \(number):",
            String(
                format: "  client: intended %.9f s, started %.9f s, ended %.9f s, %@ after %d attempt%@",
                record.intended, record.started, record.ended, "\(record.outcome)", record.attempts,
                record.attempts == 1 ? "" : "s"),
        ]
        if let key = record.firstKey {
            lines.append("  key: \(key)\(record.keyChanged ? " (changed between attempts)" : "")")
        }
        let attempts = (ledger?.records ?? []).filter { $0.benchSendID == Int64(number) }
        if attempts.isEmpty { lines.append("  server: no attempt arrived") }
        for (index, attempt) in attempts.enumerated() {
            let rule = attempt.rule >= 0 ? "rule \(attempt.rule)" : "no rule"
            let retryAfter = attempt.retryAfter.isNaN ? "" : String(format: ", Retry-After %.3f s", attempt.retryAfter)
            lines.append(
                String(
                    format: "  server attempt %d: arrived %.9f s, answered %.9f s, status %d, %@, %@%@%@%@", index + 1,
                    attempt.arrival, attempt.finished, Int(attempt.status), rule, attempt.action.name,
                    attempt.effect ? ", took effect" : "", attempt.clientGone ? ", client gone" : "", retryAfter))
        }
        return lines.joined(separator: "\n")
    }
}
