import Foundation
import Frontmail
import FrontmailMutants
import Synchronization
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// The cancellation experiment's parts: its fault plan, its report, and one short in-process run.
@Suite("cancellation experiment: plan, report, measurement")
struct CancellationLatencyTests {
    @Test("a wait that times out names what it waited for")
    func waitNamesItsCondition() async throws {
        do {
            try await waitUntil(timeout: 0.01, "the server to finish the held attempt") { false }
            Issue.record("the wait returned")
        } catch let error as WaitTimedOut {
            #expect(error.description == "waited 0.01 s for the server to finish the held attempt, in vain")
        }
        try await waitUntil(timeout: 0.01, "nothing") { true }
    }

    @Test("a failed wait says what the socket server held then; other errors and in-process fakes pass unchanged")
    func waitSaysWhatTheServerHeld() async throws {
        let timedOut = WaitTimedOut(seconds: 30, what: "the backoff sample to start its backoff")
        try await withFakeFrontmail(frontEnd: .socket, core: FakeFrontmailCore()) { harness in
            let client = try harness.client(publicKey: "pk_wait")
            _ = try await client.send(templateID: "tpl_order", params: ["n": 1])
            let described = "\(WaitTimedOut.adding(serverOf: harness, to: timedOut))"
            #expect(
                described.hasPrefix("waited 30.0 s for the backoff sample to start its backoff, in vain (the server"))
            #expect(described.hasSuffix("of 1 opened and had seen 1 requests)"))
            #expect(WaitTimedOut.adding(serverOf: harness, to: CancellationError()) is CancellationError)
        }
        try await withFakeFrontmail(frontEnd: .inProcess, core: FakeFrontmailCore()) { harness in
            #expect("\(WaitTimedOut.adding(serverOf: harness, to: timedOut))" == "\(timedOut)")
        }
    }

    @Test("each phase's measured sends meet their fault; every other send hangs")
    func plan() throws {
        let plan = CancellationLatency.plan([.inFlight, .backoff], timeScale: 0.01)
        try plan.validate(path: "plan")
        let engine = FaultEngine(plan: plan, seed: 1)
        func action(_ key: String) -> FaultAction.Kind? {
            engine.decide(
                FaultEngine.Facts(
                    endpoint: .send, attempt: 1, identity: 1, elapsed: 0, headers: ["Idempotency-Key": key]))?.action
                .kind
        }
        #expect(action("cancel-probe-inFlight-3") == .hang)
        #expect(action("cancel-probe-backoff-3") == .respond)
        #expect(action("background-1") == .hang)
    }

    @Test("the report names every metric by phase and load, and counts aborted among unfinished sends")
    func report() {
        var idle = CancellationLatency.Result(client: .sdk, phase: .inFlight, backgroundLoad: 0)
        for ms in [0.1, 0.2, 0.3, 0.4] { idle.latency.record(ms / 1000, scale: 1e9) }
        idle.codes = ["aborted": 3, "ok": 1]
        idle.liveAfter = 2
        for ms in [0.01, 0.01, 0.02, 0.02] { idle.reference.record(ms / 1000, scale: 1e9) }
        for ms in [0.09, 0.19, 0.28, 0.38] { idle.excess.record(ms / 1000, scale: 1e9) }
        var raw = CancellationLatency.Result(client: .rawURLSession, phase: .inFlight, backgroundLoad: 64)
        raw.latency.record(0.01, scale: 1e9)
        raw.codes = ["cancelled": 1]
        let (rows, metrics) = CancellationLatency.report([idle, raw], scenario: "c")
        #expect(metrics["cancellation.inFlight.idle.aborted_ratio"] == 1)
        #expect(metrics["cancellation.inFlight.idle.finished_before_cancel"] == 1)
        #expect(abs(metrics["cancellation.inFlight.idle.max"]! - 0.4) < 0.001)
        #expect(abs(metrics["cancellation.inFlight.idle.excess_max"]! - 0.38) < 0.001)
        #expect(abs(metrics["cancellation.inFlight.idle.excess_p90"]! - 0.38) < 0.001)
        #expect(abs(metrics["cancellation.inFlight.idle.reference_max"]! - 0.02) < 0.001)
        // The baseline has no reference: no reference or excess figures for it.
        #expect(metrics["cancellation.raw_urlsession.inFlight.load.excess_p90"] == nil)
        #expect(metrics["cancellation.raw_urlsession.inFlight.load.aborted_ratio"] == 1)
        #expect(metrics["cancellation.raw_urlsession.inFlight.load.background_load"] == 64)
        #expect(metrics["cancellation.live_requests_after"] == 2)
        #expect(rows.allSatisfy { $0.scenario == "c" && $0.probe == "cancellation" })
    }

    @Test("in process: every cancelled send is aborted and no attempt starts after the cancel")
    func measure() async throws {
        let results = try await CancellationLatency.measure(
            client: .sdk, phases: [.beforeFirstAttempt, .inFlight, .backoff], samples: 5, backgroundLoad: 16,
            transport: .inProcess)
        #expect(results.map(\.phase) == [.beforeFirstAttempt, .inFlight, .backoff])
        for result in results {
            #expect(result.latency.count == 5)
            // One reference per sample, cancelled with it; the excess never exceeds the latency.
            #expect(result.reference.count == 5 && result.excess.count == 5)
            #expect(result.excess.value(at: 1) <= result.latency.value(at: 1))
            #expect(result.codes == ["aborted": 5], "\(result.phase)")
            #expect(result.attemptsAfterCancel == 0)
            if result.phase == .beforeFirstAttempt {
                #expect(result.serverRetriesAfterCancel.isNaN)
            } else {
                #expect(result.serverRetriesAfterCancel == 0, "\(result.phase)")
            }
        }
    }

    @Test("a client that resends behind the SDK's back after a cancel is caught by the server's ledger")
    func retryAfterCancelFromTheLedger() async throws {
        let resends = ResendLog()
        // The resends of held requests are held too; end them with the test.
        defer { resends.cancelAll() }
        let results = try await CancellationLatency.measure(
            client: .sdk, phases: [.inFlight, .backoff], samples: 5, backgroundLoad: 0, transport: .inProcess,
            wrap: { ResendAfterCancelTransport(inner: $0, resends: resends) })
        for result in results {
            // The SDK's own account is clean: it started no attempt after the cancel.
            #expect(result.attemptsAfterCancel == 0, "\(result.phase)")
            #expect(result.codes == ["aborted": 5], "\(result.phase)")
            // The server saw the resends.
            #expect(result.serverRetriesAfterCancel >= 5, "\(result.phase)")
        }
    }
}

@Suite("cancellation experiment: its rows")
struct CancellationRowsTests {
    @Test("with no background load the cancellation experiment writes each idle cell once")
    func noDuplicateCells() async throws {
        let scenario = try makeScenario(
            #"{"name": "c", "timeScale": 0.01, "cancellation": {"phases": ["inFlight"], "samples": 2, "backgroundLoad": 0}}"#
        )
        let result = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
        let keys = result.rows.map(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(keys.contains("cancellation.inFlight.idle.p99"))
    }
}
