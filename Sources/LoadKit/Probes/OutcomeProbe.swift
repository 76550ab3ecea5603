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
        // The SDK's attempts (all, and answered) per bench id, and how many sends share it.
        var reported: [Int: (sends: Int, attempts: Int, answered: Int)] = [:]
        // On the real clock: the status each attempt's answer had as the client saw it (0: none).
        var seen: [Int: [UInt16]] = [:]
        for record in records where record.outcome != .dropped {
            let answered = record.attemptStatuses.lazy.filter { $0 != 0 }.count
            let benchID = scenario.benchID(record.sendID)
            let group = reported[benchID, default: (0, 0, 0)]
            reported[benchID] = (group.sends + 1, group.attempts + record.attempts, group.answered + answered)
            if scenario.clock == .real { seen[benchID] = record.attemptStatuses }
        }
        var unreported = 0
        var unseen = 0
        var errorsChecked = 0
        var errorMismatches = 0
        var overLimit = 0
        var afterFinal = 0
        var gaveUp = 0
        var hostileSends: Set<Int> = []
        var misjudged: Set<Int> = []
        // A budget may refuse a retry, and a refused connection never reaches the ledger: giving
        // up early is judged where neither can hide an attempt.
        let refused = RefuseWindows(scenario)
        let judgesGivingUp = scenario.client.budget == .none && refused.isEmpty
        let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        let deadline = scenario.clock == .real ? scenario.client.timeout.seconds * scenario.timeScale : nil
        // Request `index` of a send's `served`: whether it ends the send, nil when unknown.
        let endsAt = { (served: [LedgerRecord], index: Int, benchID: Int) -> Bool? in
            let ends = Self.ends(served[index], limit: limit, deadline: deadline)
            guard let statuses = seen[benchID], ends != nil, Self.delivered(served[index]) else { return ends }
            // On the real clock, a client's deadline may pass while an answer is on its way (it
            // waited in URLSession's queue before the server saw it): an answer the client says it
            // never saw decides nothing. Where libcurl resent a request (after a close or a reset)
            // the attempts do not line up; a resend with neither is judged as the server saw it.
            guard statuses.count == served.count else {
                return ends == true && Self.transportResends(served, scenario) > 0 ? nil : ends
            }
            return statuses[index] == 0 ? nil : ends
        }
        for (benchID, group) in reported {
            let count = ledger.count(sendID: benchID)
            unreported += max(0, count - group.attempts)
            unseen += max(0, group.answered - count)
            guard group.sends == 1 else { continue }
            let served = ledger.attempts(sendID: benchID)
            let ends = { (index: Int) in endsAt(served, index, benchID) }
            if count > scenario.client.maxRetries + 1 + Self.transportResends(served, scenario) { overLimit += 1 }
            let hostile = served.contains { Self.hostile($0, scenario.plan) }
            if hostile { hostileSends.insert(benchID) }
            if served.indices.dropLast().contains(where: { ends($0) == true }) {
                afterFinal += 1
                if hostile { misjudged.insert(benchID) }
            }
            if judgesGivingUp, !served.isEmpty, served.count < scenario.client.maxRetries + 1,
                ends(served.count - 1) == false
            {
                gaveUp += 1
                if hostile { misjudged.insert(benchID) }
            }
        }
        for record in records {
            switch record.outcome {
            case .ok:
                ok += 1
                // A send the SDK calls sent whose last request got an error in full: it ignored it.
                let benchID = scenario.benchID(record.sendID)
                let served = ledger.attempts(sendID: benchID)
                if (reported[benchID]?.sends ?? 1) == 1, !refused.touches(record), let last = served.last,
                    endsAt(served, served.count - 1, benchID) != nil, Self.planError(last, scenario.plan) != nil
                {
                    errorsChecked += 1
                    errorMismatches += 1
                    if hostileSends.contains(benchID) { misjudged.insert(benchID) }
                }
            case .failed(let code, let status):
                errors[code.rawValue, default: 0] += 1
                let benchID = scenario.benchID(record.sendID)
                // The ledger's last request is the client's last attempt unless a refusal hid one.
                let served = ledger.attempts(sendID: benchID)
                if (reported[benchID]?.sends ?? 1) == 1, !refused.touches(record), let last = served.last,
                    endsAt(served, served.count - 1, benchID) != nil, let answer = Self.planError(last, scenario.plan)
                {
                    errorsChecked += 1
                    if answer.code != code.rawValue || answer.status != status {
                        errorMismatches += 1
                        if hostileSends.contains(benchID) { misjudged.insert(benchID) }
                    }
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
        recorder.record(.survivesHostileSends, Double(hostileSends.count))
        recorder.record(.survivesMisjudged, Double(misjudged.count))
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
