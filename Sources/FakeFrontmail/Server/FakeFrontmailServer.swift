import Foundation
import Frontmail

/// The fake Frontmail API on a socket: HTTP/1.1 with keep-alive on 127.0.0.1 (port 0 by default),
/// one or more event-loop threads. Stop it with `shutdown()`, or use `withFakeFrontmail`.
public final class FakeFrontmailServer: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        /// 0 asks the system for a free port; `port` then reports it.
        public var port = 0
        /// Event-loop threads, each with its own listener on the same port (SO_REUSEPORT).
        public var loops = 1
        public var limits = HTTPRequestParser.Limits()

        public init(host: String = "127.0.0.1", port: Int = 0, loops: Int = 1) {
            self.host = host
            self.port = port
            self.loops = loops
        }
    }

    public struct Stats: Sendable, Hashable {
        public var connectionsOpened: Int
        public var connectionsActive: Int
        public var requestsServed: Int
        public var malformedRequests: Int
    }

    public let core: FakeFrontmailCore
    public let port: Int
    public let host: String
    private let loops: [EventLoop]
    private let counters = ServerCounters()

    public init(core: FakeFrontmailCore, options: Options = Options()) throws {
        self.core = core
        self.host = options.host
        var loops: [EventLoop] = []
        let (first, port) = try Socket.listen(host: options.host, port: options.port, reusePort: true)
        self.port = port
        var listeners = [first]
        for _ in 1..<max(1, options.loops) {
            listeners.append(try Socket.listen(host: options.host, port: port, reusePort: true).0)
        }
        for listener in listeners {
            loops.append(
                try EventLoop(
                    core: core, listener: listener, host: options.host, port: port, limits: options.limits,
                    counters: counters))
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// `http://127.0.0.1:PORT` (brackets for IPv6).
    public var url: URL {
        URL(string: host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)")!
    }

    public var stats: Stats {
        Stats(
            connectionsOpened: counters.opened.load(ordering: .relaxed),
            connectionsActive: counters.active.load(ordering: .relaxed),
            requestsServed: counters.served.load(ordering: .relaxed),
            malformedRequests: counters.malformed.load(ordering: .relaxed))
    }

    /// Closes every connection and listener and waits for the loops to end. Safe to call twice.
    public func shutdown() {
        for loop in loops { loop.stop() }
    }
}

/// Runs `body` with a fake Frontmail server on 127.0.0.1 and always shuts it down.
public func withFakeFrontmail<T>(
    config: EmulatorConfig = EmulatorConfig(), plan: FaultPlan = .none, seed: UInt64 = 1,
    options: FakeFrontmailServer.Options = FakeFrontmailServer.Options(),
    _ body: (FakeFrontmailServer) async throws -> T
) async throws -> T {
    let server = try FakeFrontmailServer(
        core: FakeFrontmailCore(config: config, plan: plan, seed: seed), options: options)
    defer { server.shutdown() }
    return try await body(server)
}
