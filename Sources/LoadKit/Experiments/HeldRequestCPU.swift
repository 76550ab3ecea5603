import FakeFrontmail
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What requests that wait for an answer cost the client while they wait: `held` plain
/// `URLSession.data(for:)` requests that the fake server holds, and the CPU seconds the client's
/// threads and the server's event loop spend over `seconds` of that wait.
///
/// The reproducer of a FoundationNetworking behaviour on Linux (docs/urlsession-linux.md): a
/// transfer on a connection it opened itself keeps the write-readiness source it registered while
/// connecting, an idle socket is always writable, and so every such request keeps libdispatch's
/// event thread and URLSession's work queue busy until it ends.
public enum HeldRequestCPU {
    public struct Result: Sendable {
        public var held: Int
        public var seconds: Double
        public var clientCPUSeconds: Double
        public var serverCPUSeconds: Double
        /// Connections the server opened for the held requests.
        public var connectionsOpened: Int
    }

    public static func measure(held: Int, seconds: Double) async throws -> Result {
        let hang = FaultPlan(rules: [FaultRule(match: FaultMatch(endpoint: .send), action: FaultAction(.hang))])
        let core = FakeFrontmailCore(plan: hang, seed: 1)
        return try await withFakeFrontmail(
            frontEnd: .socket, core: core, session: .init(maxConnections: max(64, held + 64), requestTimeout: 600)
        ) { harness in
            // A socket front end always has its server.
            func opened() -> Int { harness.server?.stats.connectionsOpened ?? 0 }
            let openedBefore = opened()
            return try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<held {
                    group.addTask { _ = await CancellationLatency.rawSend(harness: harness, key: "held-\(index)") }
                }
                try await waitUntil(timeout: stallLimit, "the held requests to reach the server") {
                    core.ledger.count >= held
                }
                let before = ThreadCPU.now()
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                let spent = ThreadCPU.now() - before
                group.cancelAll()
                return Result(
                    held: held, seconds: seconds, clientCPUSeconds: spent.client,
                    serverCPUSeconds: spent.server, connectionsOpened: opened() - openedBefore)
            }
        }
    }
}
