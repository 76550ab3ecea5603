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
        if !record.attemptStatuses.isEmpty {
            let seen = record.attemptStatuses.map { $0 == 0 ? "none" : String($0) }
            lines.append(
                "  client saw: \(seen.joined(separator: ", ")) (each attempt's answer; none: it got no answer)")
        }
        if let key = record.firstKey {
            lines.append("  key: \(key)\(record.keyChanged ? " (changed between attempts)" : "")")
        }
        // A status read carries the number of its own in the same header: it is listed apart.
        let requests = (ledger?.records ?? []).filter { $0.benchSendID == Int64(number) }
        let attempts = requests.filter { $0.endpoint == .send }
        if attempts.isEmpty { lines.append("  server: no attempt arrived") }
        for (index, attempt) in attempts.enumerated() {
            lines.append(line("server attempt \(index + 1)", attempt))
        }
        for read in requests where read.endpoint != .send {
            lines.append(line("\(read.endpoint.rawValue) request (status read \(number))", read))
        }
        return lines.joined(separator: "\n")
    }

    private static func line(_ title: String, _ request: LedgerRecord) -> String {
        let rule = request.rule >= 0 ? "rule \(request.rule)" : "no rule"
        let retryAfter = request.retryAfter.isNaN ? "" : String(format: ", Retry-After %.3f s", request.retryAfter)
        return String(
            format: "  %@: arrived %.9f s, answered %.9f s, connection %u, status %d, %@, %@%@%@%@", title,
            request.arrival, request.finished, request.connection, Int(request.status), rule, request.action.name,
            request.effect ? ", took effect" : "", request.clientGone ? ", client gone" : "", retryAfter)
    }

    /// Every send's trace, in order: the evidence of a run on the real clock, whose replay may not
    /// fail again (explore over sockets keeps it beside a found file).
    static func all(history: History, ledger: AttemptLedger?) -> String {
        let numbers = history.records.map { history.number($0.sendID) }.sorted()
        return numbers.map { text(number: $0, history: history, ledger: ledger) }.joined(separator: "\n") + "\n"
    }
}
