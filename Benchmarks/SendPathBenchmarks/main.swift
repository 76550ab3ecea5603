import BenchKit
import FakeFrontmail
import Foundation
import Frontmail
import LoadKit
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Send-path overhead: the SDK's whole `send` over the in-process transport (time and allocations
// per send, one at a time), and the SDK over URLSession against a raw URLSession request to the
// same fake server, 64 in flight each, side by side in one run (target: SDK >= 0.9x raw).
//
//   swift run -c release SendPathBenchmarks [--quick] [--out FILE.csv]

let arguments = benchmarkArguments(
    tool: "SendPathBenchmarks", usage: "usage: SendPathBenchmarks [--quick] [--out FILE.csv]")
let quick = arguments.flag("quick")
let runner = quick ? BenchRunner(minimumSeconds: 0.3, minimumOperations: 50, allocationIterations: 50) : BenchRunner()

/// Runs an async body from the synchronous benchmark loop, on a fresh Task, and waits for it.
func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// Answers every request with the same 202: the SDK's own cost, nothing else.
struct CannedTransport: FrontmailTransport {
    static let accepted = FrontmailHTTPResponse(
        status: 202, headers: ["Content-Type": "application/json"],
        body: Data(#"{"message_id":"msg_1","status":"queued","status_token":"stk_1"}"#.utf8))
    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse { Self.accepted }
}

let params: [String: FrontmailValue] = PayloadFactory.contactForm
let canned = try Frontmail(
    publicKey: "pk_bench", apiURL: URL(string: "http://send-path.invalid")!, transport: CannedTransport())
let sdkOnly = runner.measure(
    group: "send_path", subject: "sdk_canned_response", bytesPerOperation: 0, processWide: true
) {
    blocking { _ = try? await canned.send(templateID: "tpl_bench", params: params) }
}
let inProcessResult = try await withFakeFrontmail(frontEnd: .inProcess, core: FakeFrontmailCore(seed: 1)) { fake in
    let inProcess = try Frontmail(publicKey: "pk_bench", apiURL: fake.baseURL, transport: fake.transport)
    return runner.measure(
        group: "send_path", subject: "sdk_in_process_fake", bytesPerOperation: 0, processWide: true
    ) {
        blocking { _ = try? await inProcess.send(templateID: "tpl_bench", params: params) }
    }
}
var rows = sdkOnly.rows(benchmark: "send_path") + inProcessResult.rows(benchmark: "send_path")

let (rawRate, rawFailures, sdkRate, sdkFailures) = try await withFakeFrontmail(
    frontEnd: .socket, core: FakeFrontmailCore(seed: 2), session: .init(maxConnections: 128)
) { fake in
    let session = fake.session!
    let overSockets = try Frontmail(publicKey: "pk_bench", apiURL: fake.baseURL, transport: fake.transport)
    let body = try JSONSerialization.data(withJSONObject: [
        "template_id": "tpl_bench", "template_params": ["email": "jan@example.com"], "user_id": "pk_bench",
    ])
    let seconds = quick ? 1.5 : 5
    let (rawRate, rawFailures) = await Calibration.closedLoopRate(concurrency: 64, seconds: seconds) {
        var request = URLRequest(url: fake.baseURL.appendingPathComponent("v1/send"))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("pk_bench", forHTTPHeaderField: "X-Frontmail-Public-Key")
        request.setValue(UUID().uuidString.lowercased(), forHTTPHeaderField: "Idempotency-Key")
        guard let (_, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 202
    }
    let (sdkRate, sdkFailures) = await Calibration.closedLoopRate(concurrency: 64, seconds: seconds) {
        (try? await overSockets.send(templateID: "tpl_bench", params: ["email": "jan@example.com"])) != nil
    }
    return (rawRate, rawFailures, sdkRate, sdkFailures)
}
rows += [
    SummaryRow(
        scenario: "send_path", probe: "urlsession", metric: "raw", statistic: "sends_per_s", value: rawRate,
        unit: "sends/s"),
    SummaryRow(
        scenario: "send_path", probe: "urlsession", metric: "raw", statistic: "failures", value: Double(rawFailures),
        unit: "sends"),
    SummaryRow(
        scenario: "send_path", probe: "urlsession", metric: "sdk", statistic: "sends_per_s", value: sdkRate,
        unit: "sends/s"),
    SummaryRow(
        scenario: "send_path", probe: "urlsession", metric: "sdk", statistic: "failures", value: Double(sdkFailures),
        unit: "sends"),
]
let checks = [
    RatioCheck(group: "urlsession", subject: "sdk", baseline: "raw_urlsession", ratio: sdkRate / rawRate, target: 0.9)
]
try report(benchmark: "send_path", rows: rows, checks: checks, out: arguments.value("out"))
for result in [sdkOnly, inProcessResult] {
    print(
        String(
            format: "%@: %.0f sends/s one at a time, %.1f µs p50 per send, %@ allocations per send (all threads)",
            result.subject, result.operationsPerSecond, result.time.value(at: 0.5) / 1e3,
            result.allocations.isNaN ? "n/a" : String(format: "%.0f", result.allocations)))
}
