import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// On the real clock an attempt may never leave URLSession's queue before the client's deadline (a
/// session busy delivering large answers): the server then saw fewer requests than the client made.
/// A request's answer decides a verdict only if the client saw an answer for one of the attempts it
/// can have been; a client that saw the answer and broke the contract anyway is still caught.
@Suite("real-clock verdicts when attempts never reached the server")
struct RealClockVerdictTests {
    /// Every send answered 302 with a large body; sub-second attempts, one retry.
    static let scenario = """
        {"name": "lost-attempts", "clock": "real", "client": {"maxRetries": 1, "timeout": "590ms"},
         "load": {"type": "closed", "concurrency": 1, "sends": 1},
         "plan": {"rules": [{"match": {"endpoint": "send"}, "action": {"type": "respond", "status": 302, "body": "megabytes"}}]}}
        """

    /// The verdicts for one send: the client's statuses per attempt and what it threw, against the
    /// server's requests (each answered 302 by rule 0, well within the deadline).
    static func metrics(
        statuses: [Int?], outcome: History.Outcome, requests: Int, requestStatus: UInt16 = 302
    ) throws -> [String: Double] {
        let scenario = try makeScenario(Self.scenario)
        let ledger = LedgerBuilder()
        for index in 0..<requests {
            let arrival = 0.1 + 0.6 * Double(index)
            ledger.request(
                sendID: Int64(scenario.benchID(0)), arrival: arrival, finished: arrival + 0.2,
                status: requestStatus, rule: 0, action: .fault(.respond))
        }
        let history = HistoryBuilder()
        history.send(0, end: 1.2, statuses: statuses, outcome: outcome)
        return OutcomeProbe(scenario: scenario, history: history.history, ledger: ledger.index, elapsed: 1.2).metrics
    }

    static let timeout = History.Outcome.failed(code: .timeout, status: nil)
    static let redirect = History.Outcome.failed(code: .badRequest, status: 302)

    @Test("two attempts, one request, no answer seen by either: the answer decides nothing")
    func lostAttemptUnseenAnswer() throws {
        let metrics = try Self.metrics(statuses: [nil, nil], outcome: Self.timeout, requests: 1)
        #expect(metrics["send.errors_checked"] == 0)
        #expect(metrics["send.error_mismatches"] == 0)
        #expect(metrics["survives.misjudged"] == 0)
    }

    @Test("a client that saw the 302 on its second attempt and threw a timeout is caught")
    func lostAttemptSeenAnswerMisreported() throws {
        let metrics = try Self.metrics(statuses: [nil, 302], outcome: Self.timeout, requests: 1)
        #expect(metrics["send.errors_checked"] == 1)
        #expect(metrics["send.error_mismatches"] == 1)
        #expect(metrics["survives.misjudged"] == 1)
    }

    @Test("a client that saw the 302 on its second attempt and threw it passes")
    func lostAttemptSeenAnswerThrown() throws {
        let metrics = try Self.metrics(statuses: [nil, 302], outcome: Self.redirect, requests: 1)
        #expect(metrics["send.errors_checked"] == 1)
        #expect(metrics["send.error_mismatches"] == 0)
    }

    @Test("a retry after an answer the client says it saw is caught, one it never saw is not judged")
    func retryAfterFinalAnswer() throws {
        // Three attempts, two requests: the first request was attempt 1 or 2.
        let unseen = try Self.metrics(
            statuses: [nil, nil, 202], outcome: .ok(messageID: "msg_1"), requests: 2, requestStatus: 202)
        #expect(unseen["attempts.after_final_answer"] == 0)
        let seen = try Self.metrics(
            statuses: [202, nil, 202], outcome: .ok(messageID: "msg_1"), requests: 2, requestStatus: 202)
        #expect(seen["attempts.after_final_answer"] == 1)
    }

    @Test(
        "every attempt made, the last one's 503 seen, one lost in URLSession's queue: not giving up early; one attempt fewer is"
    )
    func lostAttemptIsNoEarlyGiveUp() throws {
        // Two attempts allowed; the server saw one request, answered 503 (retryable).
        let failed = History.Outcome.failed(code: .serviceUnavailable, status: 503)
        let all = try Self.metrics(statuses: [nil, 503], outcome: failed, requests: 1, requestStatus: 503)
        #expect(all["attempts.gave_up_early"] == 0)
        // A client that stopped after its one attempt's 503, with a retry left.
        let early = try Self.metrics(statuses: [503], outcome: failed, requests: 1, requestStatus: 503)
        #expect(early["attempts.gave_up_early"] == 1)
    }

    @Test("counts that line up are judged attempt by attempt, as before")
    func alignedCounts() throws {
        let thrown = try Self.metrics(statuses: [302], outcome: Self.redirect, requests: 1)
        #expect(thrown["send.errors_checked"] == 1 && thrown["send.error_mismatches"] == 0)
        let misreported = try Self.metrics(statuses: [302], outcome: Self.timeout, requests: 1)
        #expect(misreported["send.error_mismatches"] == 1)
        let unseen = try Self.metrics(statuses: [nil], outcome: Self.timeout, requests: 1)
        #expect(unseen["send.errors_checked"] == 0)
    }
}
