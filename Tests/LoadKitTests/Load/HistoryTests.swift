import Frontmail
import Testing

@testable import LoadKit

/// The client's history: Jepsen's ok / fail / info table and what the SDK's events add to a record.
@Suite("history: outcomes and the ok/fail/info table")
struct HistoryTests {
    static func record(
        _ outcome: History.Outcome, indeterminate: Bool = false
    ) -> History.Record {
        var record = History.Record(sendID: 0, intended: 0)
        record.outcome = outcome
        record.indeterminateAttempt = indeterminate
        return record
    }

    @Test(
        "each outcome has one verdict",
        arguments: [
            (record(.ok(messageID: "msg_1")), History.Record.Verdict.ok),
            (record(.dropped), .dropped),
            (record(.pending), .info),
            (record(.failed(code: .invalidTemplateParams, status: 422)), .fail),
            (record(.failed(code: .rateLimited, status: 429)), .fail),
            // A 4xx after an attempt that may have been applied (a 503, a timeout) proves nothing.
            (record(.failed(code: .invalidTemplateParams, status: 422), indeterminate: true), .info),
            // 409 conflict: another request with the key is in progress, so it may yet commit.
            (record(.failed(code: .conflict, status: 409)), .info),
            (record(.failed(code: .serviceUnavailable, status: 503)), .info),
            (record(.failed(code: .timeout, status: nil)), .info),
            (record(.failed(code: .networkError, status: nil)), .info),
        ])
    func verdictTable(record: History.Record, verdict: History.Record.Verdict) {
        #expect(record.verdict == verdict)
    }

    @Test("the SDK's events fill in attempts, key changes, indeterminate attempts, errors and backoffs")
    func eventsFillTheRecord() {
        let built = HistoryBuilder()
        built.send(
            0, keys: ["a", "b", "a"], statuses: [503, nil, 202],
            backoffs: [(0.1, .jitter(cap: 0.3)), (2, .retryAfter(2))], outcome: .ok(messageID: "msg_1"))
        built.send(1, statuses: [422], outcome: .failed(code: .invalidTemplateParams, status: 422))
        let records = built.history.records
        #expect(records[0].attempts == 3)
        #expect(records[0].keyChanged)
        #expect(records[0].indeterminateAttempt)
        #expect(records[0].attemptStatuses == [503, 0, 202])
        #expect(!records[1].keyChanged)
        #expect(!records[1].indeterminateAttempt)
        #expect(records[1].verdict == .fail)
        #expect(
            built.history.attemptErrors == ["service_unavailable": 1, "network_error": 1, "invalid_template_params": 1])
        #expect(built.history.backoffs.map(\.afterAttempt) == [0, 1])
        #expect(built.history.backoffs.map(\.delay) == [0.1, 2])
        #expect(built.history.snapshot.inFlight == 0)
        #expect(built.history.snapshot.ok == 1)
    }

    @Test("events outside a send's task-local id are ignored")
    func eventsWithoutASendID() {
        let built = HistoryBuilder()
        built.history.schedule(0, number: 0, intended: 0)
        built.history.record(.attemptStarted(operation: .send, key: "x", attempt: 0, at: 0))
        #expect(built.history.records[0].attempts == 0)
    }
}
