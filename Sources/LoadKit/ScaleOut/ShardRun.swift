import Foundation

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

    package init(
        scenarios: [Scenario], shard: Shard, server: URL?, rate: Double?, quick: Bool, out: URL, progress: Bool,
        progressLines: Bool
    ) {
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
                observed, scenario: scenario, quick: quick, shard: shard, sharedServer: server != nil)
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
