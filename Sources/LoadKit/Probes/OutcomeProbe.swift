import FakeFrontmail
import Foundation
import Frontmail

/// Success rate, error codes, attempts per send, latency percentiles (from the intended start, in
/// policy units), throughput and the server's load amplification.
///
/// Attempts are counted where they landed: the server's ledger (a connection refused before any
/// request is not a request). The SDK's own count is checked against it: requests the server saw
/// that the SDK never reported (`attempts.unreported`: hidden retries, in the SDK or below it) and
/// answered attempts the SDK reported that the server never saw (`attempts.unseen`: invented ones).
/// Sends that share an explicit idempotency key share a bench id, so the server cannot tell them
/// apart: such a group is checked as a whole (its requests against the sum of its sends' attempts),
/// and its sends' attempts per send are their own counts, which that check holds to the ledger.
/// A failed send whose last request got a plan's error answer in full must throw that answer's
/// code and status, and a send that got one cannot have succeeded (`send.error_mismatches`). From
/// the ledger alone, against the scenario file: a send with more requests than `maxRetries + 1`
/// (`attempts.over_limit`), one with a request after an answer the contract never retries
/// (`attempts.after_final_answer`), and one that stopped after a failure it could still retry
/// (`attempts.gave_up_early`). Sends that got an answer outside the
/// contract (`hostile`: a 1xx, 3xx or 600-999 status, a body no API sends, an unreadable or huge
/// Retry-After) are counted (`survives.hostile_sends`), and those that then broke one of these
/// verdicts again apart (`survives.misjudged`): a client that survives such an answer ends it as
/// the contract says.
struct OutcomeProbe {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    var latency = Histogram()

    init(scenario: Scenario, history: History, ledger: LedgerIndex, elapsed: Double) {
        let records = history.records
        let scale = scenario.timeScale
        var recorder = MetricRecorder(scenario: scenario.name)
        var attempts = Histogram()
        var errors: [String: Int] = [:]
        var ok = 0
        var dropped = 0
        var verdicts = SendVerdicts(scenario: scenario, records: records, ledger: ledger)
        verdicts.judgeRequests()
        for record in records {
            switch record.outcome {
            case .ok:
                ok += 1
                verdicts.judgeLastAnswer(of: record, failed: nil)
            case .failed(let code, let status):
                errors[code.rawValue, default: 0] += 1
                verdicts.judgeLastAnswer(of: record, failed: (code.rawValue, status))
            case .dropped:
                dropped += 1
                continue
            case .pending: errors["unfinished", default: 0] += 1
            }
            let benchID = scenario.benchID(record.sendID)
            let shared = (verdicts.reported[benchID]?.sends ?? 1) > 1
            attempts.record(UInt64(shared ? record.attempts : ledger.count(sendID: benchID)))
            if record.ended.isFinite { latency.record((record.ended - record.intended) / scale, scale: 1e9) }
        }
        let started = records.count - dropped
        recorder.record(.sendSends, Double(started))
        recorder.record(.sendOk, Double(ok))
        recorder.record(.sendFailed, Double(started - ok))
        recorder.record(.sendSuccessRate, started == 0 ? .nan : Double(ok) / Double(started))
        recorder.record(.sendDropped, Double(dropped))
        recorder.record(.sendThroughput, elapsed > 0 ? Double(started) / elapsed : .nan)
        recorder.record(counts: errors, as: { .sendErrors($0) })
        recorder.record(counts: history.attemptErrors, as: { .attemptErrors($0) })
        if scenario.client.budget != .none {
            recorder.record(.retryBudgetRefused, Double(history.retriesRefused))
        }
        recorder.record(latency, as: .sendLatency, divisor: 1e6)
        recorder.record(attempts, as: .attemptsPerSend, divisor: 1)
        verdicts.record(into: &recorder)
        let serverRequests = ledger.sendRequests
        recorder.record(.loadServerRequests, Double(serverRequests))
        recorder.record(.loadAmplification, started == 0 ? .nan : Double(serverRequests) / Double(started))
        rows = recorder.rows
        metrics = recorder.metrics
    }

    /// The error a request got from the plan, when the client saw it whole: a `respond` rule's
    /// status and code (or the API's code for that status), with the API's JSON body; with a named
    /// body that is not the API's error, the code the contract gives its status (`internal_error`
    /// for 500-599, else `bad_request`); a 2xx with such a body is `invalid_response`, no status.
    /// A `raw` body may be anything, so it is not judged.
    static func planError(_ request: LedgerRecord, _ plan: FaultPlan) -> (code: String, status: Int?)? {
        guard request.action == .fault(.respond), !request.clientGone, request.rule >= 0,
            Int(request.rule) < plan.rules.count
        else { return nil }
        let action = plan.rules[Int(request.rule)].action
        guard let status = action.status else { return nil }
        if (200..<300).contains(status) {
            guard let body = action.body, body.name != nil else { return nil }
            return ("invalid_response", nil)
        }
        guard let body = action.body else { return (action.code ?? ServerResponse.defaultCode(for: status), status) }
        guard body.name != nil else { return nil }
        return ((500...599).contains(status) ? "internal_error" : "bad_request", status)
    }

    /// Requests of a send that libcurl may have resent below the SDK, over sockets: it resends a
    /// request once when its reused connection closed before any answer (the plan's `close` and
    /// `reset`), a request the SDK never sees. In-process, none.
    static func transportResends(_ served: [LedgerRecord], _ scenario: Scenario) -> Int {
        guard scenario.transport == .socket else { return 0 }
        return served.lazy.filter { $0.action == .fault(.close) || $0.action == .fault(.reset) }.count
    }

    /// Whether the plan answered this request outside the contract: a 1xx, 3xx or 600-999, a
    /// hostile body, or a Retry-After the fake itself reads as nothing or as 2^31 s or more.
    static func hostile(_ request: LedgerRecord, _ plan: FaultPlan) -> Bool {
        guard request.action == .fault(.respond), request.rule >= 0, Int(request.rule) < plan.rules.count else {
            return false
        }
        let action = plan.rules[Int(request.rule)].action
        if let status = action.status, !(200...299).contains(status), !(400...599).contains(status) { return true }
        if action.body?.isHostile == true { return true }
        guard case .raw(let text)? = action.retryAfter else { return false }
        switch RetryAfterMeant.reading(text, now: Date(timeIntervalSince1970: 0)) {
        case nil: return true
        case .seconds(let seconds)?: return seconds >= RetryAfterMeant.maxSeconds
        case .instant?: return false
        }
    }

    /// On the real clock, an answer the server finished this close to the client's deadline (or
    /// after it) may have reached the client after it gave up: the verdicts built on it are not
    /// judged (certify's 50 ms for a retry's timing, `CertifyJudge.earlyTolerance`).
    static let realClockMargin = 0.05

    /// Whether the contract ends the send after this answer (true) or retries after it (false); nil
    /// when the client may not have seen it in time (the real clock: `deadline` is the client's
    /// timeout, and the server took longer than it less `realClockMargin`).
    static func ends(_ request: LedgerRecord, limit: Double, deadline: Double?) -> Bool? {
        if let deadline, delivered(request), !(request.finished - request.arrival < deadline - realClockMargin) {
            return nil
        }
        return endsTheSend(request, limit: limit)
    }

    /// Whether the client received this answer whole and the contract says no request follows it
    /// (`ContractAnswer`).
    static func endsTheSend(_ request: LedgerRecord, limit: Double) -> Bool {
        delivered(request)
            && ContractAnswer.endsTheSend(status: Int(request.status), retryAfter: request.retryAfter, limit: limit)
    }

    static func delivered(_ request: LedgerRecord) -> Bool { ContractAnswer.delivered(request) }

    func latencyCSV() -> String {
        var text = "low_ms,high_ms,count\n"
        for bucket in latency.buckets {
            text += "\(Double(bucket.low) / 1e6),\(Double(bucket.high) / 1e6),\(bucket.count)\n"
        }
        return text
    }
}
