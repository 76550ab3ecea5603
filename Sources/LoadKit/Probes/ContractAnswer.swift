import FakeFrontmail
import Foundation

/// The contract's one rule for what follows an answer (§4.1, §4.4), written once for every judge:
/// the scenario probes (`OutcomeProbe`, `BudgetReplay`, `JitterProbe`), explore's properties that
/// rest on them, and certify's `ServerView`. Read from the server's record, never from the SDK.
enum ContractAnswer {
    /// The statuses a client retries: 429 and 500-599. Every other status ends the send (a 2xx,
    /// a 4xx, and a status outside the API's table: 1xx, 3xx, 600-999).
    static func retried(status: Int) -> Bool {
        status == 429 || (500...599).contains(status)
    }

    /// Whether no request may follow a whole answer: its status is not retried, or it asks for a
    /// Retry-After of more than `limit` seconds (nil or NaN: none; infinity is over any limit). A
    /// caller that compares a value read back from a scaled clock passes its limit with its own
    /// rounding allowance.
    static func endsTheSend(status: Int, retryAfter: Double?, limit: Double) -> Bool {
        if !retried(status: status) { return true }
        guard let retryAfter, !retryAfter.isNaN else { return false }
        return retryAfter > limit
    }

    /// Whether the client received this answer whole: the server wrote a status and all of the
    /// answer, and the client was still there to read it (not cut, reset, closed or held).
    static func delivered(_ record: LedgerRecord) -> Bool {
        guard record.status != 0, !record.clientGone else { return false }
        switch record.action {
        case .fault(.truncate), .fault(.commitThenDrop), .fault(.reset), .fault(.close), .fault(.hang): return false
        default: return true
        }
    }
}
