import Frontmail
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Each probe fed a hand-built history and ledger: a failure points at a line, not at a run.
@Suite("probes over hand-built histories and ledgers")
struct ProbeTests {
    static let plain = """
        {"name": "hand", "load": {"type": "closed", "concurrency": 1, "sends": 1},
         "client": {"maxRetryAfter": "10s", "baseDelay": "100ms"}}
        """

    @Test("the ledger index groups requests by bench send id; others are orphans")
    func ledgerIndex() {
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, key: "a", arrival: 1)
        ledger.request(sendID: 1, key: "b", arrival: 2)
        ledger.request(sendID: 0, key: "a", arrival: 3)
        ledger.request(sendID: -1, key: nil, arrival: 4)
        ledger.request(sendID: 7, key: nil, arrival: 5, endpoint: .status)
        let index = ledger.index
        #expect(index.attempts(sendID: 0).map(\.arrival) == [1, 3])
        #expect(index.attempt(sendID: 0, number: 2)?.arrival == 3)
        #expect(index.attempt(sendID: 0, number: 3) == nil)
        #expect(index.orphans == [3])
        #expect(index.sendRequests == 4)
        #expect(index.attempts(sendID: 7).isEmpty)
    }

    @Test("outcome: rates, errors, latency from the intended start, amplification")
    func outcome() throws {
        let scenario = try makeScenario(Self.plain)
        let built = HistoryBuilder()
        built.send(0, start: 0, end: 0.25, outcome: .ok(messageID: "msg_1"))
        built.send(
            1, start: 1, end: 1.5, statuses: [503, 503, 503],
            outcome: .failed(code: .serviceUnavailable, status: 503))
        built.dropped(2, at: 2)
        let ledger = LedgerBuilder()
        for sendID: Int64 in [0, 1, 1, 1] { ledger.request(sendID: sendID) }
        let probe = OutcomeProbe(scenario: scenario, history: built.history, ledger: ledger.index, elapsed: 4)
        #expect(probe.metrics["send.sends"] == 2)
        #expect(probe.metrics["send.ok"] == 1)
        #expect(probe.metrics["send.failed"] == 1)
        #expect(probe.metrics["send.success_rate"] == 0.5)
        #expect(probe.metrics["send.dropped"] == 1)
        #expect(probe.metrics["send.throughput"] == 0.5)
        #expect(probe.metrics["send.errors.service_unavailable"] == 1)
        #expect(probe.metrics["attempts.errors.service_unavailable"] == 3)
        #expect(probe.metrics["attempts_per_send.max"] == 3)
        #expect(probe.metrics["load.server_requests"] == 4)
        #expect(probe.metrics["load.amplification"] == 2)
        // 250 ms and 500 ms, within the histogram's 3 significant digits.
        #expect(abs(probe.metrics["send.latency.max"]! - 500) < 1)
        #expect(abs(probe.metrics["send.latency.p50"]! - 250) < 1)
    }

    @Test("idempotency: one effect per ok send, none per fail, never two")
    func idempotencyCorrect() throws {
        let scenario = try makeScenario(Self.plain)
        let built = HistoryBuilder()
        built.send(0, key: "a", statuses: [nil, 202], outcome: .ok(messageID: "msg_1"))
        built.send(1, key: "b", statuses: [422], outcome: .failed(code: .invalidTemplateParams, status: 422))
        built.send(2, key: "c", statuses: [nil], outcome: .failed(code: .timeout, status: nil))
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, key: "a", status: 0, effect: true, message: 1)
        ledger.request(sendID: 0, key: "a", status: 202, message: 1)
        ledger.request(sendID: 1, key: "b", status: 422)
        ledger.request(sendID: 2, key: "c", status: 0, effect: true, message: 2)
        let probe = IdempotencyProbe(scenario: scenario, history: built.history, ledger: ledger.index)
        for name in [
            "duplicates", "lost", "unexpected", "fail_with_effect", "message_id_mismatches", "key_changes",
            "body_changes", "key_collisions", "defects",
        ] {
            #expect(probe.metrics["idempotency.\(name)"] == 0, "\(name)")
        }
        #expect(probe.metrics["idempotency.info_with_effect"] == 1)
        #expect(probe.metrics["idempotency.effects"] == 2)
        #expect(probe.effects == [0: 1, 1: 0, 2: 1])
    }

    @Test("idempotency: duplicates, lost sends, effects of failed sends, key and body changes are counted")
    func idempotencyBroken() throws {
        let scenario = try makeScenario(Self.plain)
        let built = HistoryBuilder()
        built.send(0, key: "a", outcome: .ok(messageID: "msg_1"))
        built.send(1, key: "b", outcome: .ok(messageID: "msg_99"))
        built.send(2, key: "c", statuses: [422], outcome: .failed(code: .invalidTemplateParams, status: 422))
        built.send(3, key: "d", statuses: [503, 202], outcome: .ok(messageID: "msg_4"))
        built.send(4, key: "e", statuses: [503, 202], outcome: .ok(messageID: "msg_5"))
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, key: "a", effect: true, message: 1)
        ledger.request(sendID: 0, key: "a2", effect: true, message: 2)
        ledger.request(sendID: 2, key: "c", status: 422, effect: true, message: 3)
        ledger.request(sendID: 3, key: "d", status: 503)
        ledger.request(sendID: 3, key: "d-changed", effect: true, message: 4)
        ledger.request(sendID: 4, key: "e", status: 503, fingerprint: 1)
        ledger.request(sendID: 4, key: "e", effect: true, message: 5, fingerprint: 2)
        ledger.request(sendID: 9, key: "stray", effect: true, message: 6, defects: .authorizationHeader)
        let metrics = IdempotencyProbe(scenario: scenario, history: built.history, ledger: ledger.index).metrics
        #expect(metrics["idempotency.duplicates"] == 1)
        #expect(metrics["idempotency.lost"] == 1)
        #expect(metrics["idempotency.fail_with_effect"] == 1)
        #expect(metrics["idempotency.key_changes"] == 2)
        #expect(metrics["idempotency.body_changes"] == 1)
        #expect(metrics["idempotency.unexpected"] == 1)
        #expect(metrics["idempotency.defects"] == 1)
    }

    @Test("jitter: delays normalised by their cap, Retry-After waits checked against the header the client got")
    func jitter() throws {
        let scenario = try makeScenario(Self.plain)
        let built = HistoryBuilder()
        // Jittered waits of 0.05, 0.1 and 0.3 under caps 0.1, 0.2 and 0.4 (the policy's: base 100 ms).
        built.send(
            0, statuses: [503, 503, 503, 202],
            backoffs: [(0.05, .jitter(cap: 0.1)), (0.1, .jitter(cap: 0.2)), (0.3, .jitter(cap: 0.4))],
            outcome: .ok(messageID: "msg_1"))
        // A 429 asking for 2 s, waited exactly; another asking for 3 s, waited 1 s.
        built.send(1, statuses: [429, 202], backoffs: [(2, .retryAfter(2))], outcome: .ok(messageID: "msg_2"))
        built.send(2, statuses: [429, 202], backoffs: [(1, .retryAfter(3))], outcome: .ok(messageID: "msg_3"))
        // A 429 asking for 30 s (over the 10 s limit) that was retried anyway.
        // (Its jittered wait reports a cap of 0.3 where the policy gives 0.1: a cap mismatch, and
        // normalised by the policy's cap the wait is 2x too long.)
        built.send(3, statuses: [429, 202], backoffs: [(0.2, .jitter(cap: 0.3))], outcome: .ok(messageID: "msg_4"))
        let ledger = LedgerBuilder()
        for (attempt, arrival) in [0.0, 0.2, 0.5, 1.0].enumerated() {
            ledger.request(sendID: 0, arrival: arrival, finished: arrival + 0.01, status: attempt < 3 ? 503 : 202)
        }
        ledger.request(sendID: 1, arrival: 0, finished: 0, status: 429, retryAfter: 2)
        ledger.request(sendID: 1, arrival: 2.001, status: 202)
        ledger.request(sendID: 2, arrival: 0, finished: 0, status: 429, retryAfter: 3)
        ledger.request(sendID: 2, arrival: 1.001, status: 202)
        ledger.request(sendID: 3, arrival: 0, finished: 0, status: 429, retryAfter: 30)
        ledger.request(sendID: 3, arrival: 0.2, status: 202)
        let probe = JitterProbe(scenario: scenario, history: built.history, ledger: ledger.index)
        #expect(probe.normalized == [0.05 / 0.1, 0.1 / 0.2, 0.3 / 0.4, 0.2 / 0.1])
        #expect(probe.metrics["jitter.cap_mismatches"] == 1)
        #expect(probe.samples.map(\.expectedCap).filter { !$0.isNaN } == [0.1, 0.2, 0.4, 0.1])
        #expect(probe.metrics["jitter.samples"] == 4)
        #expect(probe.metrics["jitter.samples.attempt1"] == 2)
        #expect(probe.metrics["jitter.retry_after_waits"] == 2)
        #expect(probe.metrics["jitter.retry_after_mismatches"] == 1)
        #expect(probe.metrics["jitter.over_limit_retried"] == 1)
        #expect(probe.metrics["jitter.early_retries"] == 0)
        // Realized gaps: 0.2 - 0.01 after a 0.05 wait, and so on; the overshoot is their excess.
        let gaps = probe.samples.filter { $0.sendID == 0 }.map(\.realizedGap)
        #expect(zip(gaps, [0.19, 0.29, 0.49]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(probe.samplesCSV().split(separator: "\n").count == 1 + 6)
    }

    @Test("a retry that reached the server before its backoff ended is an early retry")
    func earlyRetry() throws {
        let scenario = try makeScenario(Self.plain)
        let built = HistoryBuilder()
        built.send(0, statuses: [503, 202], backoffs: [(1, .jitter(cap: 2))], outcome: .ok(messageID: "msg_1"))
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, arrival: 0, finished: 0, status: 503)
        ledger.request(sendID: 0, arrival: 0.5, status: 202)
        let probe = JitterProbe(scenario: scenario, history: built.history, ledger: ledger.index)
        #expect(probe.metrics["jitter.early_retries"] == 1)
    }

    @Test("the probe set runs only the scenario's probes and names their files")
    func probeSet() throws {
        let scenario = try makeScenario(
            """
            {"name": "only-outcome", "load": {"type": "closed", "concurrency": 1, "sends": 1}, "probes": ["outcome"]}
            """)
        let built = HistoryBuilder()
        built.send(0, outcome: .ok(messageID: "msg_1"))
        let output = ProbeSet.run(scenario, history: built.history, ledger: LedgerBuilder().index, elapsed: 1)
        #expect(Set(output.files.keys.map(\.name)) == ["latency_histogram.csv", "latency.hgrm"])
        #expect(output.metrics["send.ok"] == 1)
        #expect(output.metrics.keys.allSatisfy { !$0.hasPrefix("jitter.") && !$0.hasPrefix("idempotency.") })
        #expect(output.effects.isEmpty)
    }
}
