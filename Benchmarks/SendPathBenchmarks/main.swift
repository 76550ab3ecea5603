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
//   copy of the canned send made 1.3x slower as the gate's positive control;
// - the SDK over URLSession against raw `URLSession.data(for:)` to the same fake server, 64 in flight
//   each, in alternating windows (target: SDK >= 0.9x raw).
//
//   swift run -c release SendPathBenchmarks [--quick] [--out FILE.csv]

let arguments = benchmarkArguments(
    tool: "SendPathBenchmarks", usage: "usage: SendPathBenchmarks [--quick] [--out FILE.csv]")
let quick = arguments.flag("quick")
let runner: InterleavedRunner = quick ? .quick : .full

/// Answers every request with the same 202: the SDK's own cost, nothing else.
struct CannedTransport: FrontmailTransport {
    static let accepted = FrontmailHTTPResponse(
        status: 202, headers: ["Content-Type": "application/json"],
        body: Data(#"{"message_id":"msg_1","status":"queued","status_token":"stk_1"}"#.utf8))
    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse { Self.accepted }
}

struct ReferenceFailed: Error {}

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
        let request = FrontmailHTTPRequest(
            method: "POST", url: url,
            headers: FrontmailHTTPHeaders([
                ("Content-Type", "application/json"), ("X-Frontmail-Public-Key", "pk_bench"),
                ("Idempotency-Key", UUID().uuidString.lowercased()),
            ]), body: body)
        guard let response = try? await transport.send(request),
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        else { return nil }
        return object["message_id"] as? String
    }
    guard await foundationSend() == "msg_1" else { throw ReferenceFailed() }
    return try await withFakeFrontmail(frontEnd: .inProcess, core: FakeFrontmailCore(seed: 1)) { fake in
        let inProcess = try Frontmail(publicKey: "pk_bench", apiURL: fake.baseURL, transport: fake.transport)
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
let control = PositiveControl(
    group: "send_path", subject: "sdk_canned_response", baseline: "canned_reference", built: 1.3, in: sendPath)

/// Sends per second and failures of raw URLSession and of the SDK over URLSession, in alternating
/// windows (raw first in even rounds, the SDK first in odd ones), and the per-round ratio.
struct SocketRounds {
    var raw: [Double] = []
    var sdk: [Double] = []
    var rawFailures = 0
    var sdkFailures = 0
}
let socket = try await withFakeFrontmail(
    frontEnd: .socket, core: FakeFrontmailCore(seed: 2), session: .init(maxConnections: 128)
) { fake in
    let session = fake.session!
    let overSockets = try Frontmail(publicKey: "pk_bench", apiURL: fake.baseURL, transport: fake.transport)
    let body = try JSONSerialization.data(withJSONObject: [
        "template_id": "tpl_bench", "template_params": ["email": "jan@example.com"], "user_id": "pk_bench",
    ])
    let raw: @Sendable () async -> Bool = {
        var request = URLRequest(url: fake.baseURL.appendingPathComponent("v1/send"))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("pk_bench", forHTTPHeaderField: "X-Frontmail-Public-Key")
        request.setValue(UUID().uuidString.lowercased(), forHTTPHeaderField: "Idempotency-Key")
        guard let (_, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 202
    }
    let sdk: @Sendable () async -> Bool = {
        (try? await overSockets.send(templateID: "tpl_bench", params: ["email": "jan@example.com"])) != nil
    }
    // Warm-up: connections opened, caches filled, for both clients.
    _ = await Calibration.closedLoopRate(concurrency: 64, seconds: 0.2, raw)
    _ = await Calibration.closedLoopRate(concurrency: 64, seconds: 0.2, sdk)
    var rounds = SocketRounds()
    let window = quick ? 0.3 : 1.0
    for round in 0..<(quick ? 5 : 9) {
        for client in round % 2 == 0 ? ["raw", "sdk"] : ["sdk", "raw"] {
            let (rate, failures) = await Calibration.closedLoopRate(
                concurrency: 64, seconds: window, client == "raw" ? raw : sdk)
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
        estimate: RatioEstimate(rounds: zip(socket.sdk, socket.raw).map { $0 / $1 }), target: 0.9))
let written = try report(
    benchmark: "send_path", rows: rows, checks: checks, controls: [control], out: arguments.value("out"))
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
