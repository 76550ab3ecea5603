import Foundation
import Frontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a client reaches the fake: the one switch between the two front ends of the same core.
public enum FrontEnd: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
    /// URLSession over loopback sockets to `FakeFrontmailServer` (the real network stack).
    case socket
    /// `InProcessTransport`: the core is called directly, no sockets (10k+ sends in flight).
    case inProcess
}

/// What a front end can do, each answered by an exhaustive switch: a third front end is a compile
/// error at every question until it answers it, never a silent `== .socket` that is false.
extension FrontEnd {
    /// Requests cross the real network stack (URLSession, loopback sockets, the kernel): what a raw
    /// URLSession baseline and a control arm are compared on, and what makes a run's timings the
    /// host's.
    public var crossesNetwork: Bool {
        switch self {
        case .socket: return true
        case .inProcess: return false
        }
    }

    /// The fake can run behind it on virtual time: nothing between the client and the core waits
    /// on the real clock.
    public var runsOnVirtualTime: Bool {
        switch self {
        case .socket: return false
        case .inProcess: return true
        }
    }

    /// Other processes can reach its server: one server shared by a run's shards (`--workers`,
    /// `serve --scenario`).
    public var servesOtherProcesses: Bool {
        switch self {
        case .socket: return true
        case .inProcess: return false
        }
    }
}

/// A fake Frontmail API reachable through one front end, for the length of a scope.
public struct FakeFrontmailHarness: Sendable {
    /// The session options every harness uses over sockets.
    public struct SessionOptions: Sendable, Hashable {
        /// URLSession's connection limit per host (its default, 6, throttles any load to ~60 req/s).
        public var maxConnections: Int
        /// URLSession's own request timeout; the SDK enforces its deadlines itself, so this only
        /// has to be longer than any attempt (Linux truncates it to whole seconds).
        public var requestTimeout: TimeInterval

        public init(maxConnections: Int = 64, requestTimeout: TimeInterval = 600) {
            self.maxConnections = maxConnections
            self.requestTimeout = requestTimeout
        }
    }

    public let frontEnd: FrontEnd
    public let core: FakeFrontmailCore
    /// The socket server (nil in process).
    public let server: FakeFrontmailServer?
    /// The harness's URLSession (nil in process), for baselines that bypass the SDK.
    public let session: URLSession?
    /// What a client sends through.
    public let transport: any FrontmailTransport
    /// The API URL a client is configured with.
    public let baseURL: URL

    /// The base URL of in-process clients (never resolved: the transport calls the core).
    public static let inProcessURL = URL(string: "http://in-process.fake.invalid")!

    /// The URLSession configuration of every harness client, from the measured facts about
    /// URLSession on Linux: ephemeral, no URLCache (Foundation would write one under `$HOME`), a
    /// raised per-host connection limit, and a request timeout past any SDK deadline.
    public static func sessionConfiguration(_ options: SessionOptions) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = options.maxConnections
        configuration.timeoutIntervalForRequest = options.requestTimeout
        return configuration
    }

    /// A client of this fake with an injected environment (the load suite's observer and clock).
    package func client(
        publicKey: String = "pk_bench", retry: RetryPolicy = .default, timeout: TimeInterval = 15,
        environment: SendEnvironment = .live,
        wrap: (any FrontmailTransport) -> any FrontmailTransport = { $0 }
    ) throws -> Frontmail {
        try Frontmail(
            publicKey: publicKey, apiURL: baseURL, retry: retry, timeout: timeout, transport: wrap(transport),
            environment: environment)
    }
}

/// Runs `body` with `core` served through `frontEnd`, and always stops what it started (the
/// session's tasks, then the server) when `body` returns or throws.
public func withFakeFrontmail<T>(
    frontEnd: FrontEnd, core: FakeFrontmailCore,
    session options: FakeFrontmailHarness.SessionOptions = FakeFrontmailHarness.SessionOptions(),
    _ body: (FakeFrontmailHarness) async throws -> T
) async throws -> T {
    switch frontEnd {
    case .inProcess:
        let harness = FakeFrontmailHarness(
            frontEnd: frontEnd, core: core, server: nil, session: nil, transport: InProcessTransport(core: core),
            baseURL: FakeFrontmailHarness.inProcessURL)
        return try await body(harness)
    case .socket:
        // Its own path prefix: a stray client of an earlier fake that had this port gets 421.
        var serverOptions = FakeFrontmailServer.Options()
        serverOptions.pathPrefix = "/fm-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let server = try FakeFrontmailServer(core: core, options: serverOptions)
        defer { server.shutdown() }
        return try await withHarnessSession(options) { session, transport in
            let harness = FakeFrontmailHarness(
                frontEnd: frontEnd, core: core, server: server, session: session, transport: transport,
                baseURL: server.url)
            return try await body(harness)
        }
    }
}

/// A URLSession with the harness's configuration and an SDK transport over it, for the length of a
/// scope (for a fake served elsewhere, such as a run's shared server); its tasks are drained and
/// the session invalidated when `body` returns or throws. By `finishTasksAndInvalidate()`, not
/// `invalidateAndCancel()`: FoundationNetworking's `invalidateAndCancel()` reads the session's task
/// registry off its work queue while cancelled tasks leave it, and traps now and then
/// (docs/urlsession-linux.md); every task left here was cancelled already and ends by itself.
public func withHarnessSession<T>(
    _ options: FakeFrontmailHarness.SessionOptions, _ body: (URLSession, URLSessionTransport) async throws -> T
) async throws -> T {
    let session = URLSession(configuration: FakeFrontmailHarness.sessionConfiguration(options))
    let transport = URLSessionTransport(session: session)
    defer {
        transport.drain()
        session.finishTasksAndInvalidate()
    }
    return try await body(session, transport)
}
