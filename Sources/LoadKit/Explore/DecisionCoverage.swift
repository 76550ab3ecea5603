import FakeFrontmail

/// The SDK's decision points, and how often a case reached each: read from the server's ledger,
/// the harness's own records of the status reads and the case's plan (never the SDK's account of
/// itself). A point no case of an exploration reached is VACUOUS: no property was checked there.
enum DecisionPoint: String, CaseIterable, Sendable {
    /// A send attempt answered with a 5xx was followed by another attempt of the send.
    case retryAfter5xx = "retry.after_5xx"
    case retryAfter429 = "retry.after_429"
    /// A connection that ended without a full answer (reset, close, truncation, commit-then-drop).
    case retryAfterReset = "retry.after_reset"
    /// An attempt the client gave up on (a hang, or a delay or slow body it did not wait out).
    case retryAfterTimeout = "retry.after_timeout"
    /// A retryable answer whose Retry-After was whole seconds, a fraction, an HTTP date or 0, and
    /// another attempt followed.
    case retryAfterSeconds = "retry_after.seconds"
    case retryAfterFraction = "retry_after.fraction"
    case retryAfterDate = "retry_after.date"
    case retryAfterZero = "retry_after.zero"
    /// A retryable answer asked for a wait over the client's `maxRetryAfter` with retries left.
    case retryAfterOverLimit = "retry_after.over_limit"
    /// A status read cancelled before its first request reached the server.
    case cancelBeforeFirstAttempt = "cancel.before_first_attempt"
    /// A status read cancelled while one of its requests was at the server.
    case cancelInRequest = "cancel.in_request"
    /// A status read cancelled between its requests.
    case cancelInBackoff = "cancel.in_backoff"
    /// A retry the client's budget refused (the server-side replay of the bucket counts it).
    case budgetRefusal = "budget.refusal"
    /// A status read made more than one request.
    case statusRetry = "status.retry"

    var name: String { rawValue }

    /// How often `drawn`'s run reached each point.
    static func reached(
        _ drawn: ExploreCase, ledger: [LedgerRecord], reads: [StatusReadBook.Record], metrics: [String: Double]
    ) -> [DecisionPoint: Int] {
        var counts: [DecisionPoint: Int] = [:]
        var sends: [Int64: [LedgerRecord]] = [:]
        var readRequests: [Int64: [LedgerRecord]] = [:]
        for record in ledger where record.benchSendID >= 0 {
            if record.endpoint == .status {
                readRequests[record.benchSendID, default: []].append(record)
            } else if record.endpoint == .send {
                sends[record.benchSendID, default: []].append(record)
            }
        }
        let limit = Double(drawn.client.maxRetryAfter) / 1e6
        for attempts in sends.values {
            let ordered = attempts.sorted { $0.arrival < $1.arrival }
            for (index, record) in ordered.enumerated() {
                let retried = index + 1 < ordered.count
                if retried, let point = failure(record) { counts[point, default: 0] += 1 }
                guard record.status == 429 || (500...599).contains(record.status), record.rule >= 0,
                    Int(record.rule) < drawn.rules.count,
                    case .respond(_, let spelling?, _) = drawn.rules[Int(record.rule)].fault
                else { continue }
                if record.retryAfter > limit, index < drawn.client.maxRetries {
                    counts[.retryAfterOverLimit, default: 0] += 1
                } else if retried, let point = spelled(spelling) {
                    counts[point, default: 0] += 1
                }
            }
        }
        for (number, read) in reads.enumerated() {
            let requests = readRequests[Int64(number)] ?? []
            if requests.count > 1 { counts[.statusRetry, default: 0] += 1 }
            guard !read.cancelled.isNaN else { continue }
            if !requests.contains(where: { $0.arrival <= read.cancelled }) {
                counts[.cancelBeforeFirstAttempt, default: 0] += 1
            } else if requests.contains(where: {
                $0.arrival <= read.cancelled && ($0.finished.isNaN || read.cancelled <= $0.finished)
            }) {
                counts[.cancelInRequest, default: 0] += 1
            } else {
                counts[.cancelInBackoff, default: 0] += 1
            }
        }
        let refusals = Int(metrics[.retryExactBudgetRefusals] ?? 0)
        if refusals > 0 { counts[.budgetRefusal, default: 0] += refusals }
        return counts
    }

    /// The point a retry after `record` reached, by how the attempt failed (nil: it did not fail
    /// in one of the ways the points name).
    private static func failure(_ record: LedgerRecord) -> DecisionPoint? {
        if record.status == 429 { return .retryAfter429 }
        if (500...599).contains(record.status) { return .retryAfter5xx }
        guard case .fault(let kind) = record.action else { return nil }
        switch kind {
        case .reset, .close, .truncate, .commitThenDrop: return .retryAfterReset
        case .hang: return .retryAfterTimeout
        case .delay, .slowBody, .commitThenDelay: return record.clientGone ? .retryAfterTimeout : nil
        case .respond, .refuse: return nil
        }
    }

    private static func spelled(_ spelling: ExploreCase.RetryAfterSpelling) -> DecisionPoint? {
        switch spelling {
        case .seconds(let milliseconds) where milliseconds == 0: return .retryAfterZero
        case .seconds(let milliseconds) where milliseconds < 0: return nil
        case .seconds(let milliseconds): return milliseconds % 1000 == 0 ? .retryAfterSeconds : .retryAfterFraction
        case .httpDateIn: return .retryAfterDate
        case .text: return nil
        }
    }
}
