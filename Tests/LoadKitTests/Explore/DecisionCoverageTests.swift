import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// Decision points are read from the ledger, the read records and the plan: each counts only what
/// the server saw happen, and a point nothing reached stays at zero.
@Suite("explore: the SDK's decision points")
struct DecisionCoverageTests {
    /// A send attempt of send `send` at `arrival`, answered `status` by the plan's rule `rule`.
    static func attempt(
        send: Int64, at arrival: Double, status: UInt16 = 200, action: LedgerAction = .served, rule: Int16 = -1,
        retryAfter: Double = .nan, endpoint: Endpoint = .send, finished: Double? = nil, clientGone: Bool = false
    ) -> LedgerRecord {
        var record = LedgerRecord(arrival: arrival, connection: 0, endpoint: endpoint, keyID: 0, attempt: 1)
        record.benchSendID = send
        record.status = status
        record.action = action
        record.rule = rule
        record.retryAfter = retryAfter
        record.finished = finished ?? arrival + 0.001
        record.clientGone = clientGone
        return record
    }

    static func respond(_ status: Int, _ spelling: ExploreCase.RetryAfterSpelling?) -> ExploreCase.Rule {
        ExploreCase.Rule(fault: .respond(status: status, retryAfter: spelling, body: nil))
    }

    @Test("a retry counts after the way its attempt failed; the last attempt of a send reached no retry")
    func retriesByFailure() {
        let drawn = ExploreCase(seed: 1)
        let ledger = [
            Self.attempt(send: 0, at: 0, status: 503), Self.attempt(send: 0, at: 1, status: 429),
            Self.attempt(send: 0, at: 2, status: 0, action: .fault(.reset)),
            Self.attempt(send: 0, at: 3, status: 0, action: .fault(.hang), finished: .nan, clientGone: true),
            Self.attempt(send: 0, at: 4, status: 0, action: .fault(.delay), clientGone: false),
            Self.attempt(send: 0, at: 5, status: 500),
            // Send 1's only attempt failed: no retry followed it.
            Self.attempt(send: 1, at: 0, status: 503),
        ]
        let reached = DecisionPoint.reached(drawn, ledger: ledger, reads: [], metrics: [:])
        #expect(reached[.retryAfter5xx] == 1)
        #expect(reached[.retryAfter429] == 1)
        #expect(reached[.retryAfterReset] == 1)
        // The delay the client waited out is no timeout.
        #expect(reached[.retryAfterTimeout] == 1)
        #expect(reached[.statusRetry] == nil && reached[.budgetRefusal] == nil)
    }

    @Test("a Retry-After counts by its spelling when a retry followed, over the limit when retries were left")
    func retryAfterSpellings() {
        var drawn = ExploreCase(seed: 1)
        drawn.client.maxRetries = 2
        drawn.client.maxRetryAfter = 10_000_000
        drawn.rules = [
            Self.respond(503, .seconds(milliseconds: 2000)), Self.respond(429, .seconds(milliseconds: 1500)),
            Self.respond(503, .httpDateIn(seconds: 3)), Self.respond(429, .seconds(milliseconds: 0)),
            Self.respond(503, .seconds(milliseconds: 30_000)), Self.respond(503, .text("soon")),
        ]
        let ledger = [
            Self.attempt(send: 0, at: 0, status: 503, rule: 0, retryAfter: 2),
            Self.attempt(send: 0, at: 2, status: 429, rule: 1, retryAfter: 1.5),
            Self.attempt(send: 0, at: 3.5, status: 200),
            Self.attempt(send: 1, at: 0, status: 503, rule: 2, retryAfter: 3),
            Self.attempt(send: 1, at: 3, status: 429, rule: 3, retryAfter: 0),
            Self.attempt(send: 1, at: 3, status: 503, rule: 5),
            Self.attempt(send: 1, at: 4, status: 200),
            // Over the limit with retries left: the client had to decide, and gave up.
            Self.attempt(send: 2, at: 0, status: 503, rule: 4, retryAfter: 30),
            // Over the limit on the last allowed attempt: nothing to decide.
            Self.attempt(send: 3, at: 0, status: 503), Self.attempt(send: 3, at: 1, status: 503),
            Self.attempt(send: 3, at: 2, status: 503, rule: 4, retryAfter: 30),
        ]
        let reached = DecisionPoint.reached(drawn, ledger: ledger, reads: [], metrics: [:])
        #expect(reached[.retryAfterSeconds] == 1)
        #expect(reached[.retryAfterFraction] == 1)
        #expect(reached[.retryAfterDate] == 1)
        #expect(reached[.retryAfterZero] == 1)
        #expect(reached[.retryAfterOverLimit] == 1)
    }

    @Test("a cancelled read counts by where its cancel fell: before its first request, in one, or between")
    func cancels() {
        func read(cancelled: Double) -> StatusReadBook.Record {
            var record = StatusReadBook.Record(kind: .known, started: 0)
            record.cancelled = cancelled
            return record
        }
        let reads = [read(cancelled: 0.5), read(cancelled: 1.5), read(cancelled: 2.5), read(cancelled: .nan)]
        let ledger = [
            Self.attempt(send: 0, at: 1, status: 200, endpoint: .status),
            Self.attempt(send: 1, at: 1, status: 0, action: .fault(.hang), endpoint: .status, finished: .nan),
            Self.attempt(send: 2, at: 1, status: 503, endpoint: .status, finished: 1.1),
            Self.attempt(send: 2, at: 3, status: 200, endpoint: .status),
            Self.attempt(send: 3, at: 1, status: 200, endpoint: .status),
        ]
        let reached = DecisionPoint.reached(ExploreCase(seed: 1), ledger: ledger, reads: reads, metrics: [:])
        #expect(reached[.cancelBeforeFirstAttempt] == 1)
        #expect(reached[.cancelInRequest] == 1)
        #expect(reached[.cancelInBackoff] == 1)
        #expect(reached[.statusRetry] == 1)
        // Status requests are never counted as a send's retries.
        #expect(reached[.retryAfter5xx] == nil)
    }

    @Test("budget refusals are the server-side replay's count")
    func budget() {
        let reached = DecisionPoint.reached(
            ExploreCase(seed: 1), ledger: [], reads: [], metrics: [MetricKey.retryExactBudgetRefusals.text: 3])
        #expect(reached[.budgetRefusal] == 3)
        #expect(DecisionPoint.reached(ExploreCase(seed: 1), ledger: [], reads: [], metrics: [:]).isEmpty)
    }
}

/// explore.html says what the summary says: the verdicts, each failure with its replay, and every
/// decision point, VACUOUS where nothing reached it.
@Suite("explore: the report page")
struct ExploreReportTests {
    static func summary(failing: Bool) -> ExploreSummary {
        var summary = ExploreSummary(options: Explorer.Options())
        var outcome = Explorer.Outcome(index: 0, drawn: ExploreCase(seed: 7))
        outcome.judged = ["same-key": (checked: 3, violations: failing ? 2 : 0)]
        outcome.reached = [.retryAfter5xx: 4, .statusRetry: 1]
        outcome.sends = 3
        summary.add(outcome)
        if failing {
            var found = Found(
                property: "same-key", original: outcome, shrunk: ExploreCase(seed: 7), schedule: .random, traceSend: 2,
                metrics: [:], error: nil, shrinkRuns: 12, secondsToFind: 0.5)
            found.file = "/r/x-explore/found/same-key-1.json"
            summary.add(found)
        }
        return summary
    }

    @Test("a failing exploration: the property FAILs, its file is linked and its replay command printed")
    func failing() {
        let html = ExploreReport.render(Self.summary(failing: true), runID: "R<1>")
        #expect(html.contains("<h1>frontmail-bench explore R&lt;1&gt;</h1>"))
        #expect(html.contains("<td>same-key</td><td><span class=\"badge fail\">FAIL</span></td><td>3</td><td>2</td>"))
        #expect(html.contains("Failed: same-key."))
        #expect(html.contains("<a href=\"found/same-key-1.json\">"))
        #expect(
            html.contains(
                "<pre>frontmail-bench run /r/x-explore/found/same-key-1.json --seed 7 --schedule random --trace-send 2</pre>"
            ))
    }

    @Test("a clean exploration: nothing found, reached points COVERED, the others VACUOUS")
    func clean() {
        let html = ExploreReport.render(Self.summary(failing: false), runID: "R1")
        #expect(html.contains("Nothing found."))
        #expect(!html.contains("badge fail"))
        #expect(html.contains("2 of \(DecisionPoint.allCases.count) of the SDK's decision points reached"))
        #expect(
            html.contains(
                "<td>retry.after_5xx</td><td><span class=\"badge pass\">COVERED</span></td><td>4</td><td>1</td>"))
        #expect(
            html.contains("<td>budget.refusal</td><td><span class=\"badge\" style=\"color:#9a6700\">VACUOUS</span>"))
        #expect(html.contains("<svg"))
    }
}
