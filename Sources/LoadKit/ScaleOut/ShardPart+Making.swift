import FakeFrontmail
import Foundation

extension ShardPart.Header {
    /// The header of a part of `scenario` as this process ran it. The scenario file's bytes are
    /// read again here so that `merge` can judge with exactly the file the shards ran.
    init(
        role: Role, scenario: Scenario, quick: Bool, shard: Shard, sharedServer: Bool, wallStart: Date, end: Double,
        elapsed: Double, interrupted: Bool
    ) throws {
        let text: String
        do {
            text = try String(contentsOfFile: scenario.file, encoding: .utf8)
        } catch {
            throw ShardFileError(
                file: scenario.file,
                reason: "cannot be read again for the shard's results (\(error.localizedDescription))")
        }
        self.init(
            role: role, scenario: scenario.name, scenarioFile: scenario.file, scenarioText: text, quick: quick,
            seed: scenario.seed, shardIndex: shard.index, shardCount: shard.count, sharedServer: sharedServer,
            wallStart: wallStart.timeIntervalSince1970, elapsed: elapsed, end: end, interrupted: interrupted)
    }
}

extension ShardPart {
    /// A shard's part: its history, and its own server's ledger unless the shards shared one.
    /// `runID`: the run's (empty when none was given); `serverRunID`: the shared server's identity.
    init(
        _ observed: LoadObservation, scenario: Scenario, quick: Bool, shard: Shard, sharedServer: Bool,
        runID: String = "", serverRunID: String? = nil
    ) throws {
        var header = try Header(
            role: .shard, scenario: scenario, quick: quick, shard: shard, sharedServer: sharedServer,
            wallStart: observed.wallStart, end: observed.end, elapsed: observed.elapsed,
            interrupted: observed.interrupted)
        header.runID = runID
        header.serverRunID = sharedServer ? serverRunID : nil
        self.init(header: header)
        let history = observed.history
        records = history.records
        backoffs = history.backoffs
        attemptErrors = history.attemptErrors
        attemptBuckets = history.attemptBuckets
        if let ledger = observed.ledger, !sharedServer {
            self.ledger = ledger.records
            keys = ledger.keyTable
        }
        capacity = sharedServer ? nil : observed.capacity
    }

    /// The shared server's part: its ledger and capacity series.
    init(
        server core: FakeFrontmailCore, scenario: Scenario, quick: Bool, shards: Int, interrupted: Bool,
        runID: String? = nil
    ) throws {
        let end = core.now()
        var header = try Header(
            role: .server, scenario: scenario, quick: quick, shard: Shard(uncheckedIndex: 0, count: shards),
            sharedServer: true, wallStart: core.wallStart, end: end, elapsed: end, interrupted: interrupted)
        header.runID = runID ?? core.runID
        header.serverRunID = core.runID
        self.init(header: header)
        ledger = core.ledger.records
        keys = core.ledger.keyTable
        capacity = core.capacitySeries
    }
}
