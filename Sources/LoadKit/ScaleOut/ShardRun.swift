import FakeFrontmail
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
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
    /// or why it could not be read: a server that is down, or that is not a `serve`, is found here,
    /// before the shard writes a part full of network errors and exits 0.
    package static func serverIdentity(_ url: URL, timeout: TimeInterval = 5) async -> Result<String, ShardFileError> {
        var request = URLRequest(url: url.appendingPathComponent(String(FakeFrontmailCore.identityPath.dropFirst())))
        request.timeoutInterval = timeout
        let failed = { (reason: String) in
            Result<String, ShardFileError>.failure(ShardFileError(file: url.absoluteString, reason: reason))
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            return failed(
                "does not answer (\(error.localizedDescription)); start `frontmail-bench serve --scenario FILE --shards N` there first"
            )
        }
        return identity(status: (response as? HTTPURLResponse)?.statusCode, body: data).mapError {
            ShardFileError(file: url.absoluteString, reason: $0.reason)
        }
    }

    /// A server's answer to the identity request, read: at most 4 KB of `{"run_id": ID}` with a
    /// valid run id, or why not.
    static func identity(status: Int?, body: Data) -> Result<String, ShardFileError> {
        let failed = { (reason: String) in
            Result<String, ShardFileError>.failure(ShardFileError(file: "", reason: reason))
        }
        guard status == 200, body.count <= 4096,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let id = object["run_id"] as? String
        else {
            return failed("is not a frontmail-bench serve (no run id at \(FakeFrontmailCore.identityPath))")
        }
        if let problem = RunID.problem(id) { return failed("answered a run id that \(problem)") }
        return .success(id)
    }
}
