import BenchKit
import FakeFrontmail
import Foundation
import Frontmail
import LoadKit
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Send-path overhead, every figure side by side with a baseline in the same run (docs/benchmarks.md):
// - the SDK's whole `send` over a canned-response transport and over the in-process fake, one at a
//   time, interleaved with a reference loop that does what a hand-written Foundation client would
//   (JSONSerialization body, fresh key, the same canned transport, the answer parsed back), plus a
//   copy of the canned send made 1.3x slower as the gate's positive control (targets: <= 10 µs p50
//   and <= 12 allocations canned, <= 20 µs and <= 25 allocations through the fake), and the send
//   through the fake with the retry quota on against the same send without it (target: >= 0.99x);
// - the SDK over URLSession against raw `URLSession.data(for:)` to the same server (nginx when it is
//   installed, else the fake's socket server), 256 in flight each, in alternating windows (target:
//   SDK >= 1.05x raw);
// - the closed-loop scenario (`scenarios/closed-loop-at-scale.json`: 10,000 in flight, faults, every
//   probe) against the fake alone at the same concurrency (target: >= 30,000 sends/s).
//
//   swift run -c release SendPathBenchmarks [--quick] [--out FILE.csv] [--closed-loop SCENARIO.json]
//   swift run -c release SendPathBenchmarks --profile send_path/sdk_in_process_fake   (one workload alone,
//   20 s, for `perf record`; `urlsession/raw` and `urlsession/sdk` run one URLSession client alone)

let arguments = benchmarkArguments(
    tool: "SendPathBenchmarks",
    usage:
        "usage: SendPathBenchmarks [--quick] [--out FILE.csv] [--closed-loop SCENARIO.json] [--profile send_path/WORKLOAD|urlsession/raw|urlsession/sdk]",
    options: ["closed-loop"])
let quick = arguments.flag("quick")
var runner: InterleavedRunner = quick ? .quick : .full
runner.profile = checkedProfile(arguments, tool: "SendPathBenchmarks", groups: ["send_path", "urlsession"])
if let profile = runner.profile, profile.hasPrefix("urlsession/"),
    !["urlsession/raw", "urlsession/sdk"].contains(profile)
{
    FileHandle.standardError.write(
        Data("SendPathBenchmarks: --profile \(profile): urlsession/raw or urlsession/sdk\n".utf8))
    exit(64)
}
// The closed-loop scenario is read first: a missing or bad file stops the run before a minute of
// measurements, with the file and the reason (not a crash at the end).
let closedLoopFile = arguments.value("closed-loop") ?? "scenarios/closed-loop-at-scale.json"
let closedLoopScenario: Scenario
do {
    closedLoopScenario = try Scenario.load(file: closedLoopFile)
} catch {
    FileHandle.standardError.write(
        Data(
            "SendPathBenchmarks: \(error) (run it from the package's folder, or pass --closed-loop SCENARIO.json)\n"
                .utf8))
    exit(64)
}

/// Answers every request with the same 202: the SDK's own cost, nothing else.
struct CannedTransport: FrontmailTransport {
    static let accepted = FrontmailHTTPResponse(
        status: 202, headers: ["Content-Type": "application/json"],
        body: Data(#"{"message_id":"msg_1","status":"queued","status_token":"stk_1"}"#.utf8))
    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse { Self.accepted }
}

struct ReferenceFailed: Error {}

/// The request a hand-written client would make: the same headers, a fresh key from Foundation.
func referenceRequest(_ url: URL, _ body: Data) -> FrontmailHTTPRequest {
    FrontmailHTTPRequest(
        method: "POST", url: url,
        headers: FrontmailHTTPHeaders([
            ("Content-Type", "application/json"), ("X-Frontmail-Public-Key", "pk_bench"),
            ("Idempotency-Key", UUID().uuidString.lowercased()),
        ]), body: body)
}

/// Nonisolated: the workloads are made and called off the main actor, so no call hops between
/// executors (the SDK's own hops are part of what is measured).
func measureSendPath(_ runner: InterleavedRunner) async throws -> InterleavedResult {
    let canned = try Frontmail(
        publicKey: "pk_bench", apiURL: URL(string: "http://send-path.invalid")!, transport: CannedTransport())
    let params: [String: FrontmailValue] = PayloadFactory.contactForm
    let url = URL(string: "http://send-path.invalid/v1/send")!
    let foundationParams = try JSONSerialization.jsonObject(with: JSONEncoder().encode(FrontmailValue.object(params)))
    let transport = CannedTransport()
    /// What a hand-written client would do with Foundation: the body through JSONSerialization, a
    /// fresh key, the same transport call, the answer parsed back.
    func foundationSend() async -> String? {
        guard
            let body = try? JSONSerialization.data(withJSONObject: [
                "template_id": "tpl_bench", "template_params": foundationParams, "user_id": "pk_bench",
            ])
        else { return nil }
        guard let response = try? await transport.send(referenceRequest(url, body)),
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        else { return nil }
        return object["message_id"] as? String
    }
    guard await foundationSend() == "msg_1" else { throw ReferenceFailed() }
    return try await withFakeFrontmail(frontEnd: .inProcess, core: FakeFrontmailCore(seed: 1)) { fake in
        let inProcess = try Frontmail(publicKey: "pk_bench", apiURL: fake.baseURL, transport: fake.transport)
        // The same client with the retry quota on: every first-try success adds a token under its lock.
        let budgeted = try Frontmail(
            publicKey: "pk_bench", apiURL: fake.baseURL,
            retry: RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10, budget: .standard),
            transport: fake.transport)
        let sdkCanned = Workload("sdk_canned_response", processWide: true) {
            _ = try? await canned.send(templateID: "tpl_bench", params: params)
        }
        return await runner.measure(
            group: "send_path",
            [
                sdkCanned,
                Workload("canned_reference", processWide: true) {
                    _ = await foundationSend()
                },
                Workload("sdk_in_process_fake", processWide: true) {
                    _ = try? await inProcess.send(templateID: "tpl_bench", params: params)
                },
                Workload("sdk_in_process_fake_budget", processWide: true) {
                    _ = try? await budgeted.send(templateID: "tpl_bench", params: params)
                },
                sdkCanned.slowed(by: 1.3),
            ])
    }
}
let sendPath = try await measureSendPath(runner)
var rows = sendPath.results.flatMap { $0.rows(benchmark: "send_path") }
var checks = ["sdk_canned_response", "sdk_in_process_fake"].map {
    RatioCheck(
        group: "send_path", subject: $0, baseline: "canned_reference",
        estimate: sendPath.ratio($0, against: "canned_reference"))
}
// The retry budget's cost on the send path: the budgeted client's speed against the same client
// without a budget, interleaved in the same rounds (target: at least 0.99x, under 1 % slower).
checks.append(
    RatioCheck(
        group: "send_path", subject: "sdk_in_process_fake_budget", baseline: "sdk_in_process_fake",
        estimate: sendPath.ratio("sdk_in_process_fake_budget", against: "sdk_in_process_fake"), target: 0.99))
let control = PositiveControl(
    group: "send_path", subject: "sdk_canned_response", baseline: "canned_reference", built: 1.3, in: sendPath)

/// Sends per second and failures of raw URLSession and of the SDK over URLSession, in alternating
/// windows (raw first in even rounds, the SDK first in odd ones), and the per-round ratio.
struct SocketRounds {
    var raw: [Double] = []
    var sdk: [Double] = []
    var rawFailures = 0
    var sdkFailures = 0
    /// A `--profile urlsession/…` run: one client alone, no rounds (the caller stops its server and exits).
    var profiled = false
}
/// Requests in flight for each client in the URLSession comparison.
let urlSessionConcurrency = 256
/// Raw `URLSession.data(for:)` against the SDK over the same session and server.
func compareOverURLSession(baseURL: URL, session: URLSession, profile: String?) async throws -> SocketRounds {
    let overSockets = try Frontmail(publicKey: "pk_bench", apiURL: baseURL, session: session)
    let body = try JSONSerialization.data(withJSONObject: [
        "template_id": "tpl_bench", "template_params": ["email": "jan@example.com"], "user_id": "pk_bench",
    ])
    let rawRequest = RawRequest(url: baseURL.appendingPathComponent("v1/send"), body: body)
    let raw: @Sendable () async -> Bool = { await rawRequest.send(in: session) }
    let sdk: @Sendable () async -> Bool = {
        (try? await overSockets.send(templateID: "tpl_bench", params: ["email": "jan@example.com"])) != nil
    }
    // Warm-up: connections opened, caches filled, for both clients.
    _ = await Calibration.closedLoopRate(concurrency: urlSessionConcurrency, seconds: 0.3, raw)
    _ = await Calibration.closedLoopRate(concurrency: urlSessionConcurrency, seconds: 0.3, sdk)
    if let profile, ["urlsession/raw", "urlsession/sdk"].contains(profile) {
        // One client alone for 20 s, for `perf record` or `perf stat` (CPU per request).
        let (rate, failures) = await Calibration.closedLoopRate(
            concurrency: urlSessionConcurrency, seconds: 20, profile == "urlsession/raw" ? raw : sdk)
        print(
            String(
                format: "profile %@: %.0f requests/s for 20 s, %d failed", profile, rate, failures))
        var profiled = SocketRounds()
        profiled.profiled = true
        return profiled
    }
    var rounds = SocketRounds()
    let window = quick ? 0.3 : 0.5
    for round in 0..<(quick ? 8 : 16) {
        for client in round % 2 == 0 ? ["raw", "sdk"] : ["sdk", "raw"] {
            let (rate, failures) = await Calibration.closedLoopRate(
                concurrency: urlSessionConcurrency, seconds: window, client == "raw" ? raw : sdk)
            if client == "raw" {
                rounds.raw.append(rate)
                rounds.rawFailures += failures
            } else {
                rounds.sdk.append(rate)
                rounds.sdkFailures += failures
            }
        }
    }
    return rounds
}
// Against nginx when it is installed (a server faster than both clients, in its own process);
// otherwise against the fake's socket server, which shares this process's two cores with them.
let socket: SocketRounds
let nginx = StaticServer.start(
    status: 202, body: #"{"message_id":"msg_1","status":"queued","status_token":"stk_1"}"#)
if let server = nginx.server {
    print("urlsession: against nginx on 127.0.0.1:\(server.port), \(urlSessionConcurrency) in flight per client")
    let session = URLSession(
        configuration: FakeFrontmailHarness.sessionConfiguration(.init(maxConnections: urlSessionConcurrency)))
    socket = try await compareOverURLSession(baseURL: server.baseURL, session: session, profile: runner.profile)
    server.stop()
} else {
    print("urlsession: \(nginx.problem ?? "nginx did not start"); against the fake's socket server instead")
    socket = try await withFakeFrontmail(
        frontEnd: .socket, core: FakeFrontmailCore(seed: 2), session: .init(maxConnections: urlSessionConcurrency)
    ) { [profile = runner.profile] fake in
        try await compareOverURLSession(baseURL: fake.baseURL, session: fake.session!, profile: profile)
    }
}
// After the server is stopped: exiting earlier would leave nginx running.
if socket.profiled { exit(0) }
/// The suite's own ceiling: the closed-loop scenario (10,000 sends in flight through the
/// in-process fake, faults on, every probe recording) run as `frontmail-bench run` runs it, and,
/// as the baseline in the same run, the fake alone at the same concurrency (no SDK, no probes).
struct ClosedLoop {
    var suite: Double
    var core: Double
    var passed: Bool
    var sends: Int
}
func measureClosedLoop(_ loaded: Scenario) async throws -> ClosedLoop {
    var scenario = loaded
    if quick { scenario = scenario.quickened() }
    let result = try await ScenarioRunner(outputFolder: nil, runID: RunID.make(), progress: false).run(scenario)
    let concurrency = scenario.load.concurrency
    let core = try await withFakeFrontmail(frontEnd: .inProcess, core: FakeFrontmailCore(seed: 3)) { fake in
        let body = Data(#"{"template_id":"tpl_bench","template_params":{"n":1},"user_id":"pk_bench"}"#.utf8)
        let url = fake.baseURL.appendingPathComponent("v1/send")
        let transport = fake.transport
        return await Calibration.closedLoopRate(concurrency: concurrency, seconds: quick ? 1 : 3) {
            (try? await transport.send(referenceRequest(url, body)))?.status == 202
        }.rate
    }
    return ClosedLoop(
        suite: try result.metrics.required(.sendThroughput), core: core, passed: result.passed,
        sends: Int(try result.metrics.required(.sendSends)))
}
let closedLoop = try await measureClosedLoop(closedLoopScenario)
var closedLoopRows = SummaryBuilder(scenario: "send_path")
closedLoopRows.add("closed_loop", "suite", "sends_per_s", closedLoop.suite, "sends/s")
closedLoopRows.add("closed_loop", "in_process_core", "sends_per_s", closedLoop.core, "sends/s")
closedLoopRows.add("closed_loop", "suite", "failures", closedLoop.passed ? 0 : 1, "sends")
rows += closedLoopRows.rows

func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
var urlsession = SummaryBuilder(scenario: "send_path")
urlsession.add("urlsession", "raw", "sends_per_s", mean(socket.raw), "sends/s")
urlsession.add("urlsession", "raw", "failures", Double(socket.rawFailures), "sends")
urlsession.add("urlsession", "sdk", "sends_per_s", mean(socket.sdk), "sends/s")
urlsession.add("urlsession", "sdk", "failures", Double(socket.sdkFailures), "sends")
rows += urlsession.rows
checks.append(
    RatioCheck(
        group: "urlsession", subject: "sdk", baseline: "raw_urlsession",
        estimate: RatioEstimate(rounds: zip(socket.sdk, socket.raw).map { $0 / $1 }), target: 1.05))
let written = try report(
    benchmark: "send_path", rows: rows, checks: checks, controls: [control],
    allocationTargets: [
        AllocationTarget(group: "send_path", subject: "sdk_canned_response", limit: 12),
        AllocationTarget(group: "send_path", subject: "sdk_in_process_fake", limit: 25),
    ], out: arguments.value("out"))
/// Absolute targets of this machine kind: printed, not gated (the gate judges same-run ratios).
func target(_ met: Bool, _ text: String) { print("\(met ? "MET   " : "MISSED") \(text)") }
for (subject, limit) in [("sdk_canned_response", 10.0), ("sdk_in_process_fake", 20.0)] {
    guard let result = sendPath.result(subject) else { continue }
    let p50 = result.time.value(at: 0.5) / 1e3
    target(p50 <= limit, String(format: "send_path: %@ %.1f µs p50 per send (target <= %.0f µs)", subject, p50, limit))
}
target(
    closedLoop.suite >= 30_000 && closedLoop.passed,
    String(
        format:
            "closed_loop: %.0f sends/s, 10,000 in flight, faults and every probe on, %@ (target >= 30000 sends/s); the fake alone: %.0f sends/s (the suite reaches %.2fx of it)",
        closedLoop.suite, closedLoop.passed ? "every assertion passed" : "ASSERTIONS FAILED", closedLoop.core,
        closedLoop.suite / closedLoop.core))
for result in sendPath.results {
    // Counted by the allocation pass (under jemalloc); timed here, on the system allocator.
    let allocations =
        written.first {
            $0.probe == result.group && $0.metric == result.subject && $0.statistic == "allocs_per_op"
        }?.value ?? .nan
    print(
        String(
            format: "%@: %.0f sends/s one at a time, %.1f µs p50 per send, %@ allocations per send (all threads)",
            result.subject, result.operationsPerSecond, result.time.value(at: 0.5) / 1e3,
            allocations.isNaN ? "n/a" : String(format: "%.0f", allocations)))
}
