import Foundation
import Frontmail

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        /// A request's head must be complete this long after its first byte (408 and close).
        public var headerTimeout: Double = 10
        /// A connection waiting for a request is closed after this long without a byte.
        public var idleTimeout: Double = 60
        /// Bytes read and not yet parsed across every connection; beyond it, a connection holding a
        /// large partial request is answered 503 and closed.
        public var inputBudget = 256 * 1024 * 1024
        /// Bind a port another process already serves (SO_REUSEPORT: the kernel splits the
        /// connections, and with them the ledgers). Off: such a port is an error.
        public var sharePort = false
        /// A path every request must start with (`/fm-1a2b3c4d`); a request without it is answered
        /// 421 and never reaches the core or the ledger. The harness gives each fake its own, so a
        /// stray client of an earlier server that had the same port cannot write into this ledger.
        /// nil (the default, and `serve`): the API's paths as they are.
        public var pathPrefix: String?
        /// A request a fault's delay holds, whose client leaves, keeps its key in progress until
        /// the delay ends and is processed then, as a real server finishes work it has started
        /// (a retry meanwhile meets the duplicate in progress: 409). Off (the default): it is
        /// processed the moment its client leaves. `certify` turns it on.
        public var finishesAbandonedWorkOnTime = false
        /// Test seam: replaces `accept` (to simulate running out of descriptors).
        var accept: (@Sendable (Int32) -> Int32)?

        public init(host: String = "127.0.0.1", port: Int = 0, loops: Int = 1) {
            self.host = host
            self.port = port
            self.loops = loops
        }
    }

    /// The event loop threads' name, as `/proc/self/task/*/comm` shows it (at most 15 bytes).
    public static let loopThreadName = "fm-server-loop"

    public struct Stats: Sendable, Hashable {
        public var connectionsOpened: Int
        public var connectionsActive: Int
        public var requestsServed: Int
        public var malformedRequests: Int
        /// Connections refused because the process was out of file descriptors.
        public var connectionsRefused: Int
        /// Connections closed by the header or idle timeout.
        public var connectionsTimedOut: Int
        /// Requests refused because the input budget was spent.
        public var requestsOverBudget: Int
        /// Bytes read and not yet parsed, now.
        public var bufferedInputBytes: Int
        /// Requests without the server's path prefix (answered 421, not recorded).
        public var requestsMisdirected: Int
    }

    public let core: FakeFrontmailCore
    public let port: Int
    public let host: String
    public let pathPrefix: String?
    private let loops: [EventLoop]
    private let counters = ServerCounters()

    public init(core: FakeFrontmailCore, options: Options = Options()) throws {
        self.core = core
        self.host = options.host
        self.pathPrefix = options.pathPrefix
        var loops: [EventLoop] = []
        if options.port != 0 && !options.sharePort {
            // Our own loops share the port through SO_REUSEPORT; another process must not join them.
            let (probe, _) = try Socket.listen(host: options.host, port: options.port, reusePort: false)
            _ = Glibc.close(probe)
        }
        // SO_REUSEPORT lets any socket of this user join the port: set only when our own loops
        // or a shared port need it (one loop unshared cannot be joined by a `serve --share-port`).
        let reuse = options.sharePort || options.loops > 1
        let (first, port) = try Socket.listen(host: options.host, port: options.port, reusePort: reuse)
        self.port = port
        var listeners = [first]
        for _ in 1..<max(1, options.loops) {
            listeners.append(try Socket.listen(host: options.host, port: port, reusePort: true).0)
        }
        for listener in listeners {
            loops.append(
                try EventLoop(
                    core: core, listener: listener, host: options.host, port: port, options: options,
                    counters: counters))
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// `http://127.0.0.1:PORT` (brackets for IPv6), then the path prefix if there is one.
    public var url: URL {
        URL(
            string: (host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)") + (pathPrefix ?? ""))!
    }

    public var stats: Stats {
        Stats(
            connectionsOpened: counters.opened.load(ordering: .relaxed),
            connectionsActive: counters.active.load(ordering: .relaxed),
            requestsServed: counters.served.load(ordering: .relaxed),
            malformedRequests: counters.malformed.load(ordering: .relaxed),
            connectionsRefused: counters.refused.load(ordering: .relaxed),
            connectionsTimedOut: counters.timedOut.load(ordering: .relaxed),
            requestsOverBudget: counters.overBudget.load(ordering: .relaxed),
            bufferedInputBytes: counters.bufferedInput.load(ordering: .relaxed),
            requestsMisdirected: counters.misdirected.load(ordering: .relaxed))
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
