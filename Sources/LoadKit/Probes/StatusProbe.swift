import FakeFrontmail
import Foundation

/// Judges a load's status reads (a `status` section) from the client's records of them and the
/// server's ledger (each read's requests carry its number, `StatusReadTagTransport`):
/// - reads of sent messages that were not cancelled: how many came back with the message asked
///   for (`status.success_rate`), their errors, and how many requests one took at the server;
///   requests the SDK did not report (`status.unreported`: hidden retries); requests with a
///   defect the server flags (`status.defects`: the token in the query, an `Authorization` header,
///   no client header, a private key);
/// - reads of unknown messages: a 404 is final, so no request may follow one at the server
///   (`status.unknown_retried`), and a read whose last answer was the server's 404 must throw
///   `message_not_found` with status 404 (`status.unknown_misreported`);
/// - cancelled reads: each must end `aborted` at the cancel (`status.cancel_late.max`, policy ms:
///   exactly 0 on virtual time) and no attempt may start after it (`status.attempts_after_cancel`).
struct StatusProbe {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]

    init(scenario: Scenario, book: StatusReadBook, ledger: LedgerIndex) {
        // Each read's requests at the server, in arrival order.
        var served: [Int: [LedgerRecord]] = [:]
        var defects = 0
        for record in ledger.records where record.endpoint == .status && record.benchSendID >= 0 {
            served[Int(record.benchSendID), default: []].append(record)
            if !record.defects.isEmpty { defects += 1 }
        }
        var recorder = MetricRecorder(scenario: scenario.name)
        var reads = 0
        var ok = 0
        var mismatched = 0
        var errors: [String: Int] = [:]
        var attemptsMax = 0
        var attempts = 0
        var unknownReads = 0
        var unknownRetried = 0
        var unknownMisreported = 0
        var unknownNotFound = 0
        var cancelled = 0
        var cancelledNotAborted = 0
        var attemptsAfterCancel = 0
        var lateMax = 0.0
        var unreported = 0
        for (index, record) in book.records.enumerated() {
            let requests = served[index] ?? []
            unreported += max(0, requests.count - record.attempts)
            switch record.kind {
            case .unknown:
                unknownReads += 1
                if requests.dropLast().contains(where: Self.answeredNotFound) { unknownRetried += 1 }
                if record.lastStatus == 404, record.outcome != .failed(code: .messageNotFound, status: 404) {
                    unknownMisreported += 1
                }
                unknownNotFound += record.outcome == .failed(code: .messageNotFound, status: 404) ? 1 : 0
            case .known where record.cancelled.isFinite:
                cancelled += 1
                attemptsAfterCancel += record.attemptsAfterCancel
                if record.outcome != .failed(code: .aborted, status: nil) { cancelledNotAborted += 1 }
                let late = record.ended.isFinite ? max(0, record.ended - record.cancelled) : .infinity
                lateMax = max(lateMax, late / scenario.timeScale * 1000)
            case .known:
                reads += 1
                attempts += requests.count
                attemptsMax = max(attemptsMax, requests.count)
                switch record.outcome {
                case .ok(let matches):
                    if matches { ok += 1 } else { mismatched += 1 }
                case .failed(let code, _): errors[code.rawValue, default: 0] += 1
                case .pending: errors["unfinished", default: 0] += 1
                }
            }
        }
        recorder.record("status.reads", Double(reads))
        recorder.record("status.ok", Double(ok))
        recorder.record("status.success_rate", reads == 0 ? .nan : Double(ok) / Double(reads))
        recorder.record("status.mismatched", Double(mismatched))
        recorder.record(counts: errors, prefix: "status.errors")
        recorder.record(counts: book.attemptErrors, prefix: "status.attempt_errors")
        recorder.record("status.attempts", Double(attempts))
        recorder.record("status.unreported", Double(unreported))
        recorder.record("status.defects", Double(defects))
        recorder.record("status.attempts_per_read.max", Double(attemptsMax))
        recorder.record("status.unknown_reads", Double(unknownReads))
        recorder.record("status.unknown_not_found", Double(unknownNotFound))
        recorder.record("status.unknown_retried", Double(unknownRetried))
        recorder.record("status.unknown_misreported", Double(unknownMisreported))
        recorder.record("status.cancelled", Double(cancelled))
        recorder.record("status.cancelled_not_aborted", Double(cancelledNotAborted))
        recorder.record("status.attempts_after_cancel", Double(attemptsAfterCancel))
        recorder.record("status.cancel_late.max", cancelled == 0 ? .nan : lateMax)
        rows = recorder.rows
        metrics = recorder.metrics
    }

    /// A request the server answered in full with a 404 (not one whose answer a fault cut off).
    static func answeredNotFound(_ record: LedgerRecord) -> Bool {
        record.status == 404 && !record.clientGone && [.served, .delay, .respond].contains(record.action)
    }
}
