import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// Attempts are counted where they landed (the server's ledger), and the SDK's own count is held
/// against it: a client that retries behind its observer's back, or reports attempts it never made,
/// fails; the correct SDK passes the same scenario.
@Suite("attempt counts from the server's ledger, the SDK's count checked against it")
struct AttemptTruthTests {
    static let verdicts = ["attempts.unreported == 0", "attempts.unseen == 0", "attempts_per_send.max <= 4"]

    /// A third of the attempts fail with 503 (no Retry-After), so most sends retry at least once.
    static let brownout = """
        {"name": "attempt-truth", "timeScale": 0.01, "client": {"maxRetries": 3},
         "load": {"type": "closed", "concurrency": 32, "sends": 400},
         "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.33}, "action": {"type": "respond", "status": 503}}]},
         "assertions": \(verdicts)}
        """

    static func run(_ configure: (inout ScenarioRunner) -> Void = { _ in }) async throws -> ScenarioResult {
        try await JitterTruthTests.run(brownout, configure)
    }

    @Test("the correct SDK's count agrees with the ledger, and attempts per send are the server's")
    func correctPasses() async throws {
        let result = try await Self.run()
        #expect(JitterTruthTests.failed(result).isEmpty, "\(result.verdictLine)")
        // Retries happened, and the ledger's count is what attempts per send reports.
        #expect((result.metrics["attempts_per_send.max"] ?? 0) >= 2)
        #expect((result.metrics["load.server_requests"] ?? 0) > 400)
        let mean = result.metrics["attempts_per_send.mean"] ?? 0
        #expect(abs(mean - (result.metrics["load.amplification"] ?? 0)) < 1e-9)
    }

    @Test("a transport that resends a failed request itself, unseen by the observer, is flagged")
    func hiddenRetry() async throws {
        let result = try await Self.run { $0.seams.transportWrapper = { HiddenRetryTransport(inner: $0) } }
        let failures = JitterTruthTests.failed(result)
        #expect(failures.contains("attempts.unreported == 0"), "\(result.verdictLine)")
        #expect(!failures.contains("attempts.unseen == 0"), "\(result.verdictLine)")
        // The server's count exposes the amplification the SDK's own count hides.
        #expect(failures.contains("attempts_per_send.max <= 4"), "\(result.verdictLine)")
    }

    @Test("an SDK that reports answered attempts it never made is flagged")
    func inventedAttempts() async throws {
        let result = try await Self.run { $0.seams.observerWrapper = { DoubleCountingObserver(base: $0) } }
        let failures = JitterTruthTests.failed(result)
        #expect(failures.contains("attempts.unseen == 0"), "\(result.verdictLine)")
        #expect(!failures.contains("attempts_per_send.max <= 4"), "\(result.verdictLine)")
    }

    @Test("hand-built: requests beyond the reported ones are unreported; answered ones the server lacks are unseen")
    func handBuilt() throws {
        let scenario = try JitterTruthTests.scenario(Self.brownout)
        let ledger = LedgerBuilder()
        // Send 0: two requests at the server, one reported. Send 1: none at the server, two reported
        // (one answered, one refused before any request). Send 2: one and one.
        for sendID in [0, 0, 2] { ledger.request(sendID: Int64(scenario.benchID(sendID)), key: "k\(sendID)") }
        let history = HistoryBuilder()
        history.send(0, key: "k0", outcome: .ok(messageID: "msg_0"))
        history.send(1, key: "k1", statuses: [503, nil], outcome: .failed(code: .networkError, status: nil))
        history.send(2, key: "k2", outcome: .ok(messageID: "msg_2"))
        let probe = OutcomeProbe(
            scenario: scenario, history: history.history, ledger: LedgerIndex(ledger.ledger), elapsed: 1)
        #expect(probe.metrics["attempts.unreported"] == 1)
        #expect(probe.metrics["attempts.unseen"] == 1)
        #expect(probe.metrics["attempts_per_send.max"] == 2)
        #expect(probe.metrics["load.server_requests"] == 3)
    }
}

extension AttemptTruthTests {
    @Test("sends sharing an explicit key are checked as a group against the requests of their key")
    func sharedKeys() throws {
        let scenario = try JitterTruthTests.scenario(
            """
            {"name": "shared", "client": {"explicitKeys": {"pool": 2, "sameBody": true}},
             "load": {"type": "closed", "concurrency": 1, "sends": 4}}
            """)
        func probe(serverRequests: [Int]) -> OutcomeProbe {
            let ledger = LedgerBuilder()
            for (benchID, count) in serverRequests.enumerated() {
                for _ in 0..<count { ledger.request(sendID: Int64(benchID), key: "k\(benchID)") }
            }
            let history = HistoryBuilder()
            // Sends 0 and 2 share bench id 0, sends 1 and 3 bench id 1; send 2 made two attempts.
            for sendID in 0..<4 {
                history.send(
                    sendID, key: "k\(sendID % 2)", statuses: sendID == 2 ? [503, 202] : [202],
                    outcome: .ok(messageID: "msg_\(sendID % 2)"))
            }
            return OutcomeProbe(
                scenario: scenario, history: history.history, ledger: LedgerIndex(ledger.ledger), elapsed: 1)
        }
        let agreeing = probe(serverRequests: [3, 2])
        #expect(agreeing.metrics["attempts.unreported"] == 0)
        #expect(agreeing.metrics["attempts.unseen"] == 0)
        #expect(agreeing.metrics["attempts_per_send.max"] == 2)
        let hidden = probe(serverRequests: [4, 2])
        #expect(hidden.metrics["attempts.unreported"] == 1)
        let invented = probe(serverRequests: [3, 1])
        #expect(invented.metrics["attempts.unseen"] == 1)
    }
}
