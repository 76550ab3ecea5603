import FakeFrontmail
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `run --shard i/N`: this shard of every scenario, each written as
/// `DIR/<scenario>.shard-i-of-N.fmshard` (no verdicts: `merge` judges the union).
package struct ShardRun {
    let scenarios: [Scenario]
    let shard: Shard
    /// The shared server the shards send to (`serve --scenario`), or nil for a server of their own.
    let server: URL?
    /// The open loop's total rate every shard was given (`--rate`), recorded in the part.
    let rate: Double?
    let quick: Bool
    let out: URL
    /// The live line on stderr.
    let progress: Bool
    /// Progress as replies on stdout for a `--workers` parent.
    let progressLines: Bool
    /// The run's id (`--run-id`; a `--workers` parent gives its own), written into every part.
    let runID: String?
    /// The shared server's identity (`ShardRun.serverIdentity`), written into every part.
    let serverRunID: String?

    package init(
        scenarios: [Scenario], shard: Shard, server: URL?, rate: Double?, quick: Bool, out: URL, progress: Bool,
        progressLines: Bool, runID: String? = nil, serverRunID: String? = nil
    ) {
        self.runID = runID
        self.serverRunID = serverRunID
        self.scenarios = scenarios
        self.shard = shard
        self.server = server
        self.rate = rate
        self.quick = quick
        self.out = out
        self.progress = progress
        self.progressLines = progressLines
    }

    /// Runs every scenario's part until done or cancelled; whether any was interrupted.
    package func run() async throws -> Bool {
        var interrupted = false
        for var scenario in scenarios {
            if Task.isCancelled { break }
            // Shards run on the real clock: their parts meet at a shared server or in a merge that
            // lines them up by wall time (docs/simulation.md).
            scenario.clock = .real
            var experiment = LoadExperiment(scenario: scenario, progress: progress)
            if progressLines { experiment.progressSink = ShardProgress.write }
            let observed = try await experiment.observe(scenario, shard: shard, server: server)
            var part = try ShardPart(
                observed, scenario: scenario, quick: quick, shard: shard, sharedServer: server != nil,
                runID: runID ?? serverRunID ?? "", serverRunID: serverRunID)
            part.header.rate = rate
            let file = out.appendingPathComponent(
                ShardPart.fileName(scenario: scenario.name, role: .shard, shard: shard))
            try part.write(to: file)
            interrupted = interrupted || observed.interrupted
            printError(
                String(
                    format: "  shard %@ of %@: %d sends in %.1f s%@", shard.description, scenario.name,
                    part.records.count, observed.elapsed, observed.interrupted ? " (interrupted)" : ""))
            ChildReply.part(file.path).send()
        }
        return interrupted
    }
}

extension ShardRun {
    /// The shared server's identity (`GET <server>/__frontmail/run`, answered outside its ledger),
    /// or why it could not be read.
    package static func serverIdentity(_ url: URL, timeout: TimeInterval = 5) async -> Result<String, ShardFileError> {
        var request = URLRequest(url: url.appendingPathComponent(String(FakeFrontmailCore.identityPath.dropFirst())))
        request.timeoutInterval = timeout
        let failed = { (reason: String) in
            Result<String, ShardFileError>.failure(ShardFileError(file: url.absoluteString, reason: reason))
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request) else {
            return failed("gave no answer to \(FakeFrontmailCore.identityPath)")
        }
        guard (response as? HTTPURLResponse)?.statusCode == 200, data.count <= 4096,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["run_id"] as? String
        else {
            return failed("is not a frontmail-bench serve (no run id at \(FakeFrontmailCore.identityPath))")
        }
        if let problem = RunID.problem(id) { return failed("answered a run id that \(problem)") }
        return .success(id)
    }

    /// Why the shared server at `url` cannot take this shard's sends (nil: it accepts a
    /// connection). Only a TCP connection is made and closed, so nothing reaches the server's
    /// ledger. A shard that ran against a server that is down would write a part full of network
    /// errors and exit 0.
    package static func serverProblem(_ url: URL, timeout: TimeInterval = 5) async -> String? {
        guard let host = url.host, !host.isEmpty else { return "the URL names no host" }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: connectProblem(host, port, timeout)) }
        }
    }

    private static func connectProblem(_ host: String, _ port: Int, _ timeout: TimeInterval) -> String? {
        #if canImport(Glibc)
            return linuxConnectProblem(host, port, timeout)
        #else
            return nil
        #endif
    }

    #if canImport(Glibc)
        private static func linuxConnectProblem(_ host: String, _ port: Int, _ timeout: TimeInterval) -> String? {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var found: UnsafeMutablePointer<addrinfo>?
            let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
                return "cannot resolve \(host)"
            }
            defer { freeaddrinfo(found) }
            var problem = "no address of \(host) accepted a connection"
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let info = next {
                next = info.pointee.ai_next
                let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
                guard fd >= 0 else { continue }
                defer { close(fd) }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return nil }
                guard errno == EINPROGRESS else {
                    problem = String(cString: strerror(errno))
                    continue
                }
                var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard Glibc.poll(&poll, 1, Int32(timeout * 1000)) == 1 else {
                    problem = "no answer within \(Int(timeout)) s"
                    continue
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return nil }
                problem = String(cString: strerror(error))
            }
            return problem
        }
    #endif
}
