import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// `status(messageID:statusToken:)` under faults: the scenario `status-under-faults` passes with
/// the real SDK and fails with SDKs that read status wrongly.
@Suite("status reads: retried like sends, 404 final, cancellation at once")
struct StatusReadTests {
    enum Broken: Sendable, CustomStringConvertible {
        case none, tokenInQuery, statusTokenParameter, tokenInPath, retriesNotFound, deafBackoff, noRetries

        var description: String {
            switch self {
            case .none: return "the real SDK"
            case .tokenInQuery: return "token in the query"
            case .statusTokenParameter: return "token also in ?status_token="
            case .tokenInPath: return "token also as a path segment"
            case .retriesNotFound: return "a 404 retried"
            case .deafBackoff: return "a backoff that outlives a cancel"
            case .noRetries: return "status not retried"
            }
        }
    }

    static func run(_ broken: Broken) async throws -> ScenarioResult {
        try await runStandardQuick("status-under-faults") { runner in
            switch broken {
            case .none: break
            case .tokenInQuery: runner.seams.transportWrapper = { TokenInURL(inner: $0) }
            case .statusTokenParameter:
                runner.seams.transportWrapper = {
                    TokenInURL(inner: $0, place: .query("status_token"), keepHeader: true)
                }
            case .tokenInPath:
                runner.seams.transportWrapper = { TokenInURL(inner: $0, place: .path, keepHeader: true) }
            case .retriesNotFound: runner.seams.transportWrapper = { RetryingNonRetryable(inner: $0) }
            case .deafBackoff: runner.seams.clockWrapper = { DeafSleepClock(base: $0) }
            case .noRetries: runner.seams.policyOverride = .disabled
            }
        }
    }

    @Test("the real SDK passes status-under-faults, and the faults fired on the reads")
    func correctPasses() async throws {
        let result = try await Self.run(.none)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["status.reads"] ?? 0) >= 1500)
        #expect((result.metrics["status.cancelled"] ?? 0) >= 20)
        #expect((result.metrics["status.unknown_reads"] ?? 0) >= 100)
    }

    @Test(
        "an SDK that reads status wrongly fails the verdict made for it",
        arguments: [
            (Broken.tokenInQuery, ["status.success_rate >= 0.97", "status.defects == 0"]),
            (Broken.statusTokenParameter, ["status.defects == 0"]),
            (Broken.tokenInPath, ["status.defects == 0"]),
            (Broken.retriesNotFound, ["status.unknown_retried == 0", "status.unreported == 0"]),
            (Broken.deafBackoff, ["status.cancel_late.max == 0"]),
            (Broken.noRetries, ["status.success_rate >= 0.97"]),
        ])
    func brokenFails(broken: Broken, caughtBy: [String]) async throws {
        let result = try await Self.run(broken)
        let failed = failedAssertions(result)
        #expect(failed.isSuperset(of: caughtBy), "\(broken): \(result.verdictLine)")
    }

    /// One read's client record and the server's answers to its requests.
    static func book(_ reads: [(StatusReadBook.Record, statuses: [UInt16])]) -> (StatusReadBook, LedgerIndex) {
        let book = StatusReadBook()
        let ledger = LedgerBuilder()
        for (index, (record, statuses)) in reads.enumerated() {
            let read = book.start(record.kind, at: record.started)
            if record.cancelled.isFinite { book.cancelled(read, at: record.cancelled) }
            StatusReadBook.$current.withValue(read) {
                for attempt in 0..<record.attempts {
                    let late = attempt >= record.attempts - record.attemptsAfterCancel
                    let at = late ? record.cancelled + 0.001 : record.started
                    book.record(.attemptStarted(operation: .status, key: nil, attempt: attempt, at: at))
                    book.record(
                        .attemptFinished(
                            operation: .status, key: nil, attempt: attempt, status: record.lastStatus, code: nil,
                            duration: 0))
                }
            }
            if record.answered.isFinite { book.answered(read, at: record.answered) }
            book.finished(read, record.outcome, at: record.ended)
            for status in statuses {
                ledger.request(
                    sendID: Int64(index), key: nil, arrival: Double(index), status: status, endpoint: .status)
            }
        }
        return (book, ledger.index)
    }

    static func record(
        _ kind: StatusReadBook.Kind, _ outcome: StatusReadBook.Outcome, attempts: Int = 1, lastStatus: Int = 200,
        cancelled: Double = .nan, ended: Double = 1, afterCancel: Int = 0, answered: Double = .nan
    ) -> StatusReadBook.Record {
        var record = StatusReadBook.Record(kind: kind, started: 0)
        record.outcome = outcome
        record.attempts = attempts
        record.lastStatus = lastStatus
        record.cancelled = cancelled
        record.ended = ended
        record.attemptsAfterCancel = afterCancel
        record.answered = answered
        return record
    }

    @Test("each status verdict counts the wrong read it is made for, and only that one")
    func probeCounts() throws {
        let scenario = try makeScenario(
            #"{"name": "s", "load": {"type": "closed", "concurrency": 1, "sends": 1}, "status": {"cancel": 0.5}}"#)
        func metrics(_ reads: [(StatusReadBook.Record, statuses: [UInt16])]) -> [String: Double] {
            let (book, ledger) = Self.book(reads)
            return StatusProbe(scenario: scenario, book: book, ledger: ledger).metrics
        }
        let good = metrics([
            (Self.record(.known, .ok(matches: true)), [200]),
            (Self.record(.unknown, .failed(code: .messageNotFound, status: 404), lastStatus: 404), [404]),
            (
                Self.record(.known, .failed(code: .aborted, status: nil), cancelled: 0.5, ended: 0.5),
                [503]
            ),
        ])
        #expect(good["status.success_rate"] == 1 && good["status.mismatched"] == 0)
        #expect(good["status.unknown_retried"] == 0 && good["status.unknown_misreported"] == 0)
        #expect(good["status.cancelled"] == 1 && good["status.cancelled_not_aborted"] == 0)
        #expect(good["status.attempts_after_cancel"] == 0 && good["status.cancel_late.max"] == 0)
        #expect(good["status.unreported"] == 0 && good["status.attempts_per_read.max"] == 1)

        // The wrong message's status, a 404 thrown as another error, an ok after a cancel that
        // came 250 ms late, an attempt after a cancel, a request the SDK did not report.
        let bad = metrics([
            (Self.record(.known, .ok(matches: false)), [200]),
            (Self.record(.unknown, .failed(code: .notFound, status: 404), lastStatus: 404), [404]),
            (
                Self.record(.known, .ok(matches: true), attempts: 2, cancelled: 0.5, ended: 0.75, afterCancel: 1),
                [503, 200]
            ),
            (Self.record(.known, .ok(matches: true)), [503, 200]),
        ])
        #expect(bad["status.mismatched"] == 1 && bad["status.success_rate"] == 0.5)
        #expect(bad["status.unknown_misreported"] == 1)
        #expect(bad["status.cancelled_not_aborted"] == 1 && bad["status.attempts_after_cancel"] == 1)
        #expect(bad["status.cancel_late.max"] == 250)
        #expect(bad["status.unreported"] == 1 && bad["status.attempts_per_read.max"] == 2)
        // On the real clock an answer and a cancel land together: a read whose answer was in hand
        // before the cancel is not judged; one whose answer came after it ignored the cancel.
        let together = metrics([
            (Self.record(.known, .ok(matches: true), cancelled: 0.5, ended: 0.5, answered: 0.499), [200]),
            (Self.record(.known, .ok(matches: true), cancelled: 0.5, ended: 0.6, answered: 0.6), [200]),
            (Self.record(.known, .ok(matches: true), cancelled: 0.5, ended: 0.6), [200]),
        ])
        #expect(together["status.answered_before_cancel"] == 1)
        #expect(together["status.cancelled"] == 2 && together["status.cancelled_not_aborted"] == 2)
        // A 404 the server answered in full and a request after it; one a fault cut off is not final.
        let retried = metrics([
            (
                Self.record(.unknown, .failed(code: .messageNotFound, status: 404), attempts: 2, lastStatus: 404),
                [404, 404]
            )
        ])
        #expect(retried["status.unknown_retried"] == 1)
    }

    @Test(
        "a status section is checked where it is read",
        arguments: [
            (#""status": {"reads": 0}"#, "status.reads: must be 1-100"),
            (#""status": {"reads": 101}"#, "status.reads: must be 1-100"),
            (#""status": {"reads": 1.5}"#, "status.reads"),
            (#""status": {"unknown": 1.01}"#, "status.unknown: must be a fraction 0-1"),
            (#""status": {"cancel": -0.1}"#, "status.cancel: must be a fraction 0-1"),
            (#""status": {"cancelWithin": "0s"}"#, "status.cancelWithin"),
            (#""status": {"reeds": 1}"#, "status.reeds: unknown field"),
            (#""status": {}, "probes": ["jitter"]"#, "status: status reads are judged beside the outcome probe"),
            (#""assertions": ["status.reads >= 1"]"#, "assertions[0]: 'status.reads' needs a status section"),
        ])
    func badSection(fragment: String, expected: String) {
        let json = #"{"name": "x", "load": {"type": "closed", "concurrency": 1, "sends": 1}, "# + fragment + "}"
        #expect(throws: InputError.self) { try makeScenario(json) }
        do {
            _ = try makeScenario(json)
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test(
        "on the real clock an answer noted within 50 ms after the cancel raced it and is not judged; later, or on virtual time, it ignored the cancel"
    )
    func answerRacingTheCancel() {
        func raced(_ answered: Double, realClock: Bool, outcome: StatusReadBook.Outcome = .ok(matches: true))
            -> Bool
        {
            StatusProbe.answeredBeforeCancel(
                Self.record(.known, outcome, cancelled: 1, ended: answered, answered: answered), realClock: realClock)
        }
        #expect(raced(1.02, realClock: true))
        #expect(!raced(1.02, realClock: false))
        #expect(!raced(1.2, realClock: true))
        #expect(raced(0.9, realClock: false) && raced(0.9, realClock: true))
        // An aborted read is judged as a cancelled one, whenever its answer came.
        #expect(!raced(0.9, realClock: true, outcome: .failed(code: .aborted, status: nil)))
        // An attempt after the cancel is never excused.
        var after = Self.record(.known, .ok(matches: true), cancelled: 1, ended: 1.01, afterCancel: 1, answered: 1.01)
        #expect(!StatusProbe.answeredBeforeCancel(after, realClock: true))
        after.attemptsAfterCancel = 0
        #expect(StatusProbe.answeredBeforeCancel(after, realClock: true))
    }

    @Test("a status section keeps its scenario in one process, and its reads count in a send's worst case")
    func oneProcess() throws {
        let scenario = try makeScenario(
            #"{"name": "s", "load": {"type": "closed", "concurrency": 8, "sends": 8}, "status": {"reads": 3, "unknown": 0.1}}"#
        )
        #expect(scenario.shardingProblem(Shard(uncheckedIndex: 0, count: 2), sharedServer: false) != nil)
        var plain = scenario
        plain.status = nil
        #expect(scenario.worstSendSeconds == plain.worstSendSeconds * 5)
    }
}
