import FakeFrontmail
import Foundation

/// Merges the raw parts of a sharded run into one observation, as if one process had seen it all:
/// histories and ledgers by union (every verdict is computed afterwards, from the union), time
/// lined up, nothing averaged.
package enum ShardMerge {
    /// Why parts cannot be merged, naming the parts (exit 65).
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String
    }

    /// The shard files among `paths`: files as given, folders searched (and their sub-folders, one
    /// level down) for `*.fmshard`.
    package static func files(in paths: [String]) throws(Refusal) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Refusal(description: "\(path): no such file or folder")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            var found: [String] = []
            let entries = (try? manager.contentsOfDirectory(atPath: path)) ?? []
            for entry in entries.sorted() {
                let full = (path as NSString).appendingPathComponent(entry)
                if entry.hasSuffix("." + ShardPart.fileExtension) {
                    found.append(full)
                } else if manager.fileExists(atPath: full, isDirectory: &isDirectory), isDirectory.boolValue {
                    let inner = (try? manager.contentsOfDirectory(atPath: full)) ?? []
                    found += inner.sorted().filter { $0.hasSuffix("." + ShardPart.fileExtension) }.map {
                        (full as NSString).appendingPathComponent($0)
                    }
                }
            }
            guard !found.isEmpty else {
                throw Refusal(description: "\(path): no shard results (*.\(ShardPart.fileExtension)) in the folder")
            }
            files += found
        }
        return files
    }

    /// Parts grouped by scenario, in the order their scenarios first appear.
    package static func grouped(_ parts: [(file: String, part: ShardPart)]) -> [[(file: String, part: ShardPart)]] {
        var order: [String] = []
        var groups: [String: [(file: String, part: ShardPart)]] = [:]
        for entry in parts {
            let name = entry.part.header.scenario
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(entry)
        }
        return order.map { groups[$0]! }
    }

    /// Checks that the parts are one complete run of one scenario: the same file, seed, quick
    /// setting and shard count, every shard exactly once, and the server's part when (and only
    /// when) the shards shared a server.
    /// How far apart two machines' clocks may be, seconds.
    static let clockSkew = 300.0

    static func check(_ parts: [(file: String, part: ShardPart)]) throws(Refusal) -> (
        shards: [ShardPart], server: ShardPart?
    ) {
        guard !parts.isEmpty else { throw Refusal(description: "no shard results to merge") }
        let first = try checkOneRun(parts)
        let (shards, server) = try indexed(parts, name: first.scenario, count: first.shardCount)
        try checkServer(parts, server: server, sharedServer: first.sharedServer, name: first.scenario)
        return (shards.sorted { $0.header.shardIndex < $1.header.shardIndex }, server?.part)
    }

    /// Every part ran the same scenario text, seed, --quick, rate, shard count, server and run id
    /// as the first shard's: the header every part is compared with.
    private static func checkOneRun(_ parts: [(file: String, part: ShardPart)]) throws(Refusal) -> ShardPart.Header {
        // Compared with a shard's part: a server part (listed first in a folder) has no rate.
        let reference = parts.first { $0.part.header.role == .shard } ?? parts[0]
        let first = reference.part.header
        for (file, part) in parts {
            let header = part.header
            let ran = { (quick: Bool) in quick ? "with --quick" : "without --quick" }
            let rates = [header.rate, first.rate].map { $0.map { "--rate \($0)" } ?? "the file's rate" }
            let server = header.sharedServer ? "shared a server" : "ran its own server"
            let differences: [(differs: Bool, reason: String)] = [
                (
                    header.scenarioText != first.scenarioText,
                    "ran another version of the scenario file than \(reference.file)"
                ),
                (header.seed != first.seed, "ran with seed \(header.seed), \(reference.file) with \(first.seed)"),
                (header.quick != first.quick, "ran \(ran(header.quick)), \(reference.file) \(ran(first.quick))"),
                (
                    header.role == .shard && header.rate != first.rate,
                    "ran at \(rates[0]), \(reference.file) at \(rates[1])"
                ),
                (
                    header.shardCount != first.shardCount,
                    "is one of \(header.shardCount) shards, \(reference.file) one of \(first.shardCount)"
                ),
                (header.sharedServer != first.sharedServer, "\(server), \(reference.file) did not"),
                (
                    header.role == .shard && header.runID != first.runID,
                    "belongs to run '\(header.runID ?? "")', \(reference.file) to run '\(first.runID ?? "")'"
                ),
            ]
            if let difference = differences.first(where: \.differs) {
                throw Refusal(description: "\(file): \(part.label) of \(first.scenario) \(difference.reason)")
            }
        }
        return first
    }

    /// The shards by index, each of 0..<count once, and the one server part if there is one.
    private static func indexed(_ parts: [(file: String, part: ShardPart)], name: String, count: Int) throws(Refusal)
        -> (shards: [ShardPart], server: (file: String, part: ShardPart)?)
    {
        var byIndex: [Int: String] = [:]
        var shards: [ShardPart] = []
        var server: (file: String, part: ShardPart)?
        for (file, part) in parts {
            if part.header.role == .server {
                if let other = server {
                    throw Refusal(description: "\(name): two server parts (\(other.file) and \(file))")
                }
                server = (file, part)
                continue
            }
            let index = part.header.shardIndex
            guard (0..<count).contains(index) else {
                throw Refusal(description: "\(file): shard index \(index) is not one of 0-\(count - 1)")
            }
            if let other = byIndex[index] {
                throw Refusal(description: "\(name): shard \(index)/\(count) appears twice (\(other) and \(file))")
            }
            byIndex[index] = file
            shards.append(part)
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            let list = missing.prefix(8).map { "\($0)/\(count)" }.joined(separator: ", ")
            throw Refusal(
                description:
                    "\(name): shard\(missing.count == 1 ? "" : "s") \(list)\(missing.count > 8 ? ", …" : "") missing (have \(byIndex.count) of \(count))"
            )
        }
        return (shards, server)
    }

    /// A shared server's part is there exactly when the shards shared one, and every shard sent to
    /// that server (its identity) while it ran (its lifetime, within two machines' clock skew).
    private static func checkServer(
        _ parts: [(file: String, part: ShardPart)], server: (file: String, part: ShardPart)?, sharedServer: Bool,
        name: String
    ) throws(Refusal) {
        if sharedServer && server == nil {
            throw Refusal(
                description:
                    "\(name): the shards shared a server, and its part (\(name).server.\(ShardPart.fileExtension)) is missing"
            )
        }
        guard let server else { return }
        if !sharedServer {
            throw Refusal(
                description: "\(server.file): a server part, but the shards of \(name) each ran their own server")
        }
        let window = server.part.header.wallStart - Self.clockSkew
        let last = server.part.header.wallStart + server.part.header.end + Self.clockSkew
        for (file, part) in parts where part.header.role == .shard {
            guard part.header.serverRunID == server.part.header.serverRunID else {
                throw Refusal(
                    description:
                        "\(file): it sent to server '\(part.header.serverRunID ?? "")', but \(server.file) is the part of server '\(server.part.header.serverRunID ?? "")': a part of another run"
                )
            }
            guard (window...last).contains(part.header.wallStart) else {
                throw Refusal(
                    description:
                        "\(file): it started at \(part.header.wallStart) s, outside the lifetime of the server whose part is \(server.file) (\(server.part.header.wallStart)-\(server.part.header.wallStart + server.part.header.end) s): a part of another run"
                )
            }
        }
    }

    /// One scenario's parts merged and judged.
    package typealias Merged = (scenario: Scenario, measurement: Measurement, shards: Int)

    /// What `merge` does with the files and folders it is given: every shard file read (a damaged
    /// one refused, naming it), grouped by scenario, and each group checked and judged as one run.
    package static func merge(paths: [String]) throws -> [Merged] {
        let files = try files(in: paths)
        var parts: [(file: String, part: ShardPart)] = []
        for file in files { parts.append((file, try ShardPart.read(file))) }
        return try grouped(parts).map { group in try judge(group) }
    }

    /// The one path from parts to a judged run, for `merge` and `run --workers`: checks that the
    /// parts are one complete run (`check`), unions them (`observation`) and judges the union as a
    /// single run is judged (`Measurement.judging`), with the run's shard rows. `scenario` nil: the
    /// one the parts carry.
    package static func judge(
        _ parts: [(file: String, part: ShardPart)], scenario given: Scenario? = nil, peakBytes: Int? = nil
    ) throws(Refusal) -> (scenario: Scenario, measurement: Measurement, shards: Int) {
        let (shards, server) = try check(parts)
        var scenario: Scenario
        if let given { scenario = given } else { scenario = try Self.scenario(of: shards[0]) }
        // Only a closed load with no duration is sure to make every planned send.
        let load = scenario.load
        try checkSends(
            shards, planned: load.kind == .closed && load.duration == nil ? load.sends : nil, name: scenario.name)
        // Shards ran on the real clock (ShardRun): their union is judged as such.
        scenario.clock = .real
        let observed = observation(shards: shards, server: server, bucketWidth: scenario.timeScale)
        var measurement = Measurement.judging(scenario, observed)
        measurement.notes.forEach(printError)
        measurement.addShardRows(scenario: scenario.name, shards: shards.count, peakBytes: peakBytes)
        return (scenario, measurement, shards.count)
    }

    /// A load of a fixed number of sends: the shards that ran to their end made each exactly their
    /// share, so the parts hold every send. Fewer (a part relabelled as a whole run, or as another
    /// shard, and resealed) is not one complete run; an interrupted run is partial and says so.
    static func checkSends(_ shards: [ShardPart], planned: Int?, name: String) throws(Refusal) {
        guard let planned, !shards.contains(where: \.header.interrupted) else { return }
        for part in shards {
            let shard = Shard(uncheckedIndex: part.header.shardIndex, count: part.header.shardCount)
            let share = shard.share(of: planned)
            guard part.records.count == share else {
                throw Refusal(
                    description:
                        "\(part.label) of \(name) holds \(part.records.count) sends, but shard \(shard) of a load of \(planned) makes \(share): a part of another run, or one relabelled"
                )
            }
        }
    }

    /// The scenario the parts ran, exactly as they ran it.
    static func scenario(of part: ShardPart) throws(Refusal) -> Scenario {
        let header = part.header
        var scenario: Scenario
        do {
            scenario = try Scenario.load(data: Data(header.scenarioText.utf8), file: header.scenarioFile)
        } catch {
            throw Refusal(
                description: "the scenario carried by \(part.label) of \(header.scenario) no longer loads: \(error)")
        }
        if header.quick { scenario = scenario.quickened() }
        scenario.seed = header.seed
        if let rate = header.rate { scenario = scenario.withFixedRate(rate) }
        return scenario
    }

    /// The union of the parts on one clock. Shards that ran their own server keep their own clocks
    /// (each starts at 0, as its part of the schedule does); shards of a shared server are moved
    /// onto the server's clock by their wall-clock starts.
    static func observation(shards: [ShardPart], server: ShardPart?, bucketWidth: Double) -> LoadObservation {
        var records: [History.Record] = []
        records.reserveCapacity(shards.reduce(0) { $0 + $1.records.count })
        var backoffs: [History.Backoff] = []
        var attemptErrors: [String: Int] = [:]
        var attemptBuckets: [Int] = []
        var start = Double.infinity
        var end = -Double.infinity
        for shard in shards {
            let offset = server.map { shard.header.wallStart - $0.header.wallStart } ?? 0
            for var record in shard.records {
                record.intended += offset
                record.started += offset
                record.ended += offset
                records.append(record)
            }
            backoffs += shard.backoffs
            attemptErrors.merge(shard.attemptErrors, uniquingKeysWith: +)
            let shift = Int((offset / bucketWidth).rounded())
            for (bucket, count) in shard.attemptBuckets.enumerated() where bucket + shift >= 0 {
                let target = min(bucket + shift, CapacitySeries.maxBuckets - 1)
                if attemptBuckets.count <= target {
                    attemptBuckets.append(contentsOf: repeatElement(0, count: target + 1 - attemptBuckets.count))
                }
                attemptBuckets[target] += count
            }
            start = min(start, offset + shard.header.end - shard.header.elapsed)
            end = max(end, offset + shard.header.end)
        }
        records.sort { $0.sendID < $1.sendID }
        let ledgerParts = server.map { [$0] } ?? shards
        let history = History(
            merged: records, backoffs: backoffs, attemptErrors: attemptErrors, attemptBuckets: attemptBuckets,
            bucketWidth: bucketWidth)
        return LoadObservation(
            history: history, ledger: mergedLedger(ledgerParts), capacity: mergedCapacity(ledgerParts),
            wallStart: Date(timeIntervalSince1970: (server ?? shards[0]).header.wallStart),
            end: server.map { max(end, $0.header.end) } ?? end, elapsed: end - start,
            interrupted: (shards + (server.map { [$0] } ?? [])).contains { $0.header.interrupted })
    }
}
