import FakeFrontmail
import Foundation

/// The one server the shards of a socket scenario share (`serve --scenario`, or the parent of a
/// `--workers` run): its core is set up as every shard's own would be, and what it saw is written
/// as the run's server part for the merge.
package struct SharedServer {
    var scenario: Scenario
    var shards: Int
    var quick: Bool
    var folder: URL
    /// The run's id when a `--workers` parent runs the server (nil: the server's own).
    var runID: String?

    package init(scenario: Scenario, shards: Int, quick: Bool, folder: URL, runID: String? = nil) {
        self.scenario = scenario
        self.shards = shards
        self.quick = quick
        self.folder = folder
        self.runID = runID
    }

    /// The core: the scenario's config, its plan on the run's clock, its seed and series width.
    package func makeCore() -> FakeFrontmailCore {
        FakeFrontmailCore(
            config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed, seriesWidth: scenario.timeScale)
    }

    /// Writes the server part of what `core` saw; returns the file and the part.
    package func write(_ core: FakeFrontmailCore, interrupted: Bool = false) throws -> (file: URL, part: ShardPart) {
        let part = try ShardPart(
            server: core, scenario: scenario, quick: quick, shards: shards, interrupted: interrupted, runID: runID)
        let file = folder.appendingPathComponent(
            ShardPart.fileName(scenario: scenario.name, role: .server, shard: .whole))
        try part.write(to: file)
        return (file, part)
    }
}
