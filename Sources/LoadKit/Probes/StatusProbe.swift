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
///   (`status.unknown_retried`), and a read whose last request got the server's own 404 must throw
///   `message_not_found` with status 404 (`status.unknown_misreported`);
/// - cancelled reads: each must end `aborted` at the cancel (`status.cancel_late.max`, policy ms:
///   exactly 0 on virtual time) and no attempt may start after it (`status.attempts_after_cancel`).
struct StatusProbe {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]

    /// What the walk over the reads counts.
    private struct Counts {
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
        var answeredBeforeCancel = 0
        var attemptsAfterCancel = 0
        /// The latest a cancelled read ended after its cancel, in the scenario's seconds.
        var lateMax = 0.0
        var unreported = 0

        /// One read against its requests at the server (`realClock`: judged with real time's margin).
        mutating func add(_ record: StatusReadBook.Record, requests: [LedgerRecord], realClock: Bool, timeScale: Double)
        {
            unreported += max(0, requests.count - record.attempts)
            switch record.kind {
            case .unknown:
                unknownReads += 1
                if requests.dropLast().contains(where: StatusProbe.answeredNotFound) { unknownRetried += 1 }
                // Judged where the last request got the server's own 404 (a plan's 404 carries the
                // plan's code), answered in full.
                if let last = requests.last, last.status == 404, !last.clientGone, last.rule < 0,
                    record.outcome != .failed(code: .messageNotFound, status: 404)
                {
                    unknownMisreported += 1
                }
                unknownNotFound += record.outcome == .failed(code: .messageNotFound, status: 404) ? 1 : 0
            case .known
            where record.cancelled.isFinite && StatusProbe.answeredBeforeCancel(record, realClock: realClock):
                // Its answer was in the client's hands before the cancel: nothing was left to abort.
                answeredBeforeCancel += 1
            case .known where record.cancelled.isFinite:
                cancelled += 1
                attemptsAfterCancel += record.attemptsAfterCancel
                if record.outcome != .failed(code: .aborted, status: nil) { cancelledNotAborted += 1 }
                let late = record.ended.isFinite ? max(0, record.ended - record.cancelled) : .infinity
                lateMax = max(lateMax, late / timeScale * 1000)
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
    }

    init(scenario: Scenario, book: StatusReadBook, ledger: LedgerIndex) {
        // Each read's requests at the server, in arrival order.
        var served: [Int: [LedgerRecord]] = [:]
        var defects = 0
        for record in ledger.records where record.endpoint == .status && record.benchSendID >= 0 {
            served[Int(record.benchSendID), default: []].append(record)
            if !record.defects.isEmpty { defects += 1 }
        }
        var counts = Counts()
        for (index, record) in book.records.enumerated() {
            counts.add(
                record, requests: served[index] ?? [], realClock: scenario.clock == .real,
                timeScale: scenario.timeScale)
        }
        var recorder = MetricRecorder(scenario: scenario.name)
        recorder.record(.statusReads, Double(counts.reads))
        recorder.record(.statusOk, Double(counts.ok))
        recorder.record(.statusSuccessRate, counts.reads == 0 ? .nan : Double(counts.ok) / Double(counts.reads))
        recorder.record(.statusMismatched, Double(counts.mismatched))
        recorder.record(counts: counts.errors, as: { .statusErrors($0) })
        recorder.record(counts: book.attemptErrors, as: { .statusAttemptErrors($0) })
        let figures: [(MetricKey, Int)] = [
            (.statusAttempts, counts.attempts), (.statusUnreported, counts.unreported),
            (.statusDefects, defects), (.statusAttemptsPerReadMax, counts.attemptsMax),
            (.statusUnknownReads, counts.unknownReads), (.statusUnknownNotFound, counts.unknownNotFound),
            (.statusUnknownRetried, counts.unknownRetried), (.statusUnknownMisreported, counts.unknownMisreported),
            (.statusCancelled, counts.cancelled), (.statusCancelledNotAborted, counts.cancelledNotAborted),
            (.statusAnsweredBeforeCancel, counts.answeredBeforeCancel),
            (.statusAttemptsAfterCancel, counts.attemptsAfterCancel),
        ]
        for (key, count) in figures { recorder.record(key, Double(count)) }
        recorder.record(.statusCancelLateMax, counts.cancelled == 0 ? .nan : counts.lateMax)
        rows = recorder.rows
        metrics = recorder.metrics
    }

    /// A cancelled read that ended without `aborted` because its last answer reached the client
    /// before the cancel and no attempt started after it (on the real clock, an answer and a
    /// cancel can land together). A read whose answer came after the cancel ignored the cancel.
    /// On the real clock the answer's moment is when the transport's caller ran again, which the
    /// scheduler can put after a cancel that came later than the answer: an answer noted within
    /// `OutcomeProbe.realClockMargin` after the cancel is not judged either way.
    static func answeredBeforeCancel(_ record: StatusReadBook.Record, realClock: Bool = false) -> Bool {
        let margin = realClock ? OutcomeProbe.realClockMargin : 0
        return record.outcome != .failed(code: .aborted, status: nil)
            && record.answered <= record.cancelled + margin && record.attemptsAfterCancel == 0
    }

    /// A request the server answered in full with a 404 (not one whose answer a fault cut off).
    static func answeredNotFound(_ record: LedgerRecord) -> Bool {
        record.status == 404 && !record.clientGone
            && [.served, .fault(.delay), .fault(.respond)].contains(record.action)
    }
}
