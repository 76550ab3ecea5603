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
/// code and status (`send.error_mismatches`). From the ledger alone, against the scenario file: a
/// send with more requests than `maxRetries + 1` (`attempts.over_limit`), one with a request after
/// an answer the contract never retries (`attempts.after_final_answer`), and one that stopped after
/// a failure it could still retry (`attempts.gave_up_early`).
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
        // The SDK's attempts (all, and answered) per bench id, and how many sends share it.
        var reported: [Int: (sends: Int, attempts: Int, answered: Int)] = [:]
        for record in records where record.outcome != .dropped {
            let answered = record.attemptStatuses.lazy.filter { $0 != 0 }.count
            let benchID = scenario.benchID(record.sendID)
            let group = reported[benchID, default: (0, 0, 0)]
            reported[benchID] = (group.sends + 1, group.attempts + record.attempts, group.answered + answered)
        }
        var unreported = 0
        var unseen = 0
        var errorsChecked = 0
        var errorMismatches = 0
        var overLimit = 0
        var afterFinal = 0
        var gaveUp = 0
        // A budget may refuse a retry, and a refused connection never reaches the ledger: giving
        // up early is judged where neither can hide an attempt.
        let refused = RefuseWindows(scenario)
        let judgesGivingUp = scenario.client.budget == .none && refused.isEmpty
        let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        for (benchID, group) in reported {
            let count = ledger.count(sendID: benchID)
            unreported += max(0, count - group.attempts)
            unseen += max(0, group.answered - count)
            guard group.sends == 1 else { continue }
            if count > scenario.client.maxRetries + 1 { overLimit += 1 }
            let served = ledger.attempts(sendID: benchID)
            if served.dropLast().contains(where: { Self.endsTheSend($0, limit: limit) }) { afterFinal += 1 }
            if judgesGivingUp, let last = served.last, served.count < scenario.client.maxRetries + 1,
                !Self.endsTheSend(last, limit: limit)
            {
                gaveUp += 1
            }
        }
        for record in records {
            switch record.outcome {
            case .ok: ok += 1
            case .failed(let code, let status):
                errors[code.rawValue, default: 0] += 1
                let benchID = scenario.benchID(record.sendID)
                // The ledger's last request is the client's last attempt unless a refusal hid one.
                if (reported[benchID]?.sends ?? 1) == 1, !refused.touches(record),
                    let last = ledger.attempts(sendID: benchID).last,
                    let answer = Self.planError(last, scenario.plan)
                {
                    errorsChecked += 1
                    if answer.code != code.rawValue || answer.status != status { errorMismatches += 1 }
                }
            case .dropped:
                dropped += 1
                continue
            case .pending: errors["unfinished", default: 0] += 1
            }
            let benchID = scenario.benchID(record.sendID)
            let shared = (reported[benchID]?.sends ?? 1) > 1
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
        recorder.record(.sendErrorsChecked, Double(errorsChecked))
        recorder.record(.sendErrorMismatches, Double(errorMismatches))
        recorder.record(.attemptsUnreported, Double(unreported))
        recorder.record(.attemptsUnseen, Double(unseen))
        recorder.record(.attemptsOverLimit, Double(overLimit))
        recorder.record(.attemptsAfterFinalAnswer, Double(afterFinal))
        if judgesGivingUp { recorder.record(.attemptsGaveUpEarly, Double(gaveUp)) }
        let serverRequests = ledger.sendRequests
        recorder.record(.loadServerRequests, Double(serverRequests))
        recorder.record(.loadAmplification, started == 0 ? .nan : Double(serverRequests) / Double(started))
        rows = recorder.rows
        metrics = recorder.metrics
    }

    /// The error a request got from the plan, when the client saw it whole: a `respond` rule's
    /// status and code (or the API's code for that status), with the API's JSON body.
    static func planError(_ request: LedgerRecord, _ plan: FaultPlan) -> (code: String, status: Int)? {
        guard request.action == .fault(.respond), !request.clientGone, request.rule >= 0,
            Int(request.rule) < plan.rules.count
        else { return nil }
        let action = plan.rules[Int(request.rule)].action
        guard action.body == nil, let status = action.status, status >= 400 else { return nil }
        return (action.code ?? ServerResponse.defaultCode(for: status), status)
    }

    /// Whether the client received this answer whole and the contract says no request follows it:
    /// a status under 500 other than 429 (a 2xx, read or malformed, and every other 4xx), or a
    /// Retry-After the server meant as more than `limit` seconds.
    static func endsTheSend(_ request: LedgerRecord, limit: Double) -> Bool {
        guard delivered(request) else { return false }
        return request.status < 500 && request.status != 429
            || request.retryAfter.isFinite && request.retryAfter > limit
    }

    /// Whether the client received this answer whole (the server wrote all of it, and the client
    /// was still there to read it).
    static func delivered(_ request: LedgerRecord) -> Bool {
        guard request.status != 0, !request.clientGone else { return false }
        switch request.action {
        case .fault(.truncate), .fault(.commitThenDrop), .fault(.reset), .fault(.close), .fault(.hang): return false
        default: return true
        }
    }

    func latencyCSV() -> String {
        var text = "low_ms,high_ms,count\n"
        for bucket in latency.buckets {
            text += "\(Double(bucket.low) / 1e6),\(Double(bucket.high) / 1e6),\(bucket.count)\n"
        }
        return text
    }
}
