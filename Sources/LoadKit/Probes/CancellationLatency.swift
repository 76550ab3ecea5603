import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures the time from `task.cancel()` to the error a send throws, while the fake server holds
/// the request, with and without other sends in flight on the same client, for the SDK and for a
/// plain `URLSession.data(for:)` baseline, side by side.
public enum CancellationLatency {
    public enum Client: String, Sendable, CaseIterable {
        /// `Frontmail.send` through `URLSessionTransport`.
        case sdk
        /// `URLSession.data(for:)`, the baseline.
        case rawURLSession = "raw_urlsession"
    }

    public struct Result: Sendable {
        public var client: Client
        public var backgroundLoad: Int
        /// Cancel → thrown, in nanoseconds.
        public var latency = Histogram()
        /// Cancel → the server saw the connection end, in nanoseconds.
        public var serverClose = Histogram()
        /// Errors by code (`aborted` for the SDK; `cancelled` for the baseline).
        public var codes: [String: Int] = [:]
        /// Requests the server saw after a cancel (must be 0).
        public var attemptsAfterCancel = 0
        /// The transport's live requests once everything ended (must be 0).
        public var liveAfter = 0
    }

    /// Runs `samples` cancellations with `backgroundLoad` hanging sends in flight.
    public static func measure(client kind: Client, samples: Int, backgroundLoad: Int) async throws -> Result {
        let plan = FaultPlan(rules: [FaultRule(match: FaultMatch(endpoint: .send), action: FaultAction(.hang))])
        let core = FakeFrontmailCore(plan: plan, seed: 1)
        let server = try FakeFrontmailServer(core: core)
        defer { server.shutdown() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = max(64, backgroundLoad + 64)
        configuration.timeoutIntervalForRequest = 600
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let transport = URLSessionTransport(session: session)
        let client = try Frontmail(
            publicKey: "pk_cancel", apiURL: server.url, retry: .disabled, timeout: 600, transport: transport,
            environment: .live)
        let send: @Sendable () async -> String = {
            switch kind {
            case .sdk:
                do {
                    _ = try await client.send(templateID: "tpl_bench", params: ["probe": "cancel"])
                    return "ok"
                } catch let error as FrontmailError {
                    return error.code.rawValue
                } catch {
                    return "other"
                }
            case .rawURLSession:
                var request = URLRequest(url: server.url.appendingPathComponent("v1/send"))
                request.httpMethod = "POST"
                request.httpBody = Data(#"{"template_id":"tpl_bench","template_params":{},"user_id":"pk_cancel"}"#.utf8)
                request.setValue("pk_cancel", forHTTPHeaderField: "X-Frontmail-Public-Key")
                request.setValue(UUID().uuidString.lowercased(), forHTTPHeaderField: "Idempotency-Key")
                do {
                    _ = try await session.data(for: request)
                    return "ok"
                } catch let error as URLError {
                    return error.code == .cancelled ? "cancelled" : "url_error_\(error.code.rawValue)"
                } catch {
                    return error is CancellationError ? "cancelled" : "other"
                }
            }
        }

        var result = Result(client: kind, backgroundLoad: backgroundLoad)
        try await withThrowingTaskGroup(of: Void.self) { background in
            for _ in 0..<backgroundLoad {
                background.addTask { _ = await send() }
            }
            try await waitUntil(timeout: 60) { core.ledger.count >= backgroundLoad }
            for _ in 0..<samples {
                let before = core.ledger.count
                let measured = Task { () -> (String, Double) in
                    let code = await send()
                    return (code, core.now())
                }
                try await waitUntil(timeout: 30) { core.ledger.count > before }
                let index = core.ledger.count - 1
                let cancelledAt = core.now()
                measured.cancel()
                let (code, thrownAt) = await measured.value
                result.latency.record(thrownAt - cancelledAt, scale: 1e9)
                result.codes[code, default: 0] += 1
                try await waitUntil(timeout: 10) { !core.ledger.record(index).finished.isNaN }
                result.serverClose.record(core.ledger.record(index).finished - cancelledAt, scale: 1e9)
                result.attemptsAfterCancel += core.ledger.count - before - 1
            }
            background.cancelAll()
        }
        try await waitUntil(timeout: 10) { transport.liveRequests == 0 || kind == .rawURLSession }
        result.liveAfter = kind == .sdk ? transport.liveRequests : 0
        return result
    }

    /// Rows for the summary CSV.
    public static func rows(_ results: [Result], scenario: String) -> [SummaryRow] {
        var builder = SummaryBuilder(scenario: scenario)
        for result in results {
            let probe = "cancellation.\(result.client.rawValue).load\(result.backgroundLoad)"
            builder.add(probe, "cancel_to_error", histogram: result.latency, divisor: 1e6, unit: "ms")
            builder.add(probe, "cancel_to_server_close", histogram: result.serverClose, divisor: 1e6, unit: "ms")
            for (code, count) in result.codes.sorted(by: { $0.key < $1.key }) {
                builder.add(probe, "error_code", code, Double(count), "sends")
            }
            builder.add(probe, "attempts_after_cancel", "count", Double(result.attemptsAfterCancel), "requests")
            builder.add(probe, "live_requests_after", "count", Double(result.liveAfter), "requests")
        }
        return builder.rows
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "a condition was not met within \(seconds) s" }
}

/// Polls `condition` every 0.2 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw WaitTimedOut(seconds: timeout) }
        try await Task.sleep(nanoseconds: 200_000)
    }
}
