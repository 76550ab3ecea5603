import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// `merge`: the union of the shards is judged as one run: the same counts as an unsharded run of
/// a deterministic plan, latency percentiles within one bucket of one histogram of every sample,
/// and a broken client in one shard still caught.
@Suite("shards: merged exactly")
struct ShardMergeTests {
    /// Every send's first two attempts get 503, the third is served: each send takes three attempts
    /// and commits once, whatever the timing.
    static let recovering = """
        {"name": "merge-recovering", "seed": 5, "timeScale": 0.001, "client": {"timeout": "1000s"},
         "load": {"type": "closed", "concurrency": 16, "sends": 400},
         "plan": {"rules": [{"match": {"endpoint": "send", "attempt": {"min": 1, "max": 2}}, "action": {"type": "respond", "status": 503}}]},
         "assertions": ["send.ok == 400", "idempotency.duplicates == 0", "idempotency.lost == 0", "load.server_requests == 1200"]}
        """
    /// A 503, then a 400: every send fails after two attempts, with no effect.
    static let failing = """
        {"name": "merge-failing", "seed": 6, "timeScale": 0.001, "client": {"timeout": "1000s"},
         "load": {"type": "closed", "concurrency": 12, "sends": 300},
         "plan": {"rules": [
           {"match": {"endpoint": "send", "attempt": 1}, "action": {"type": "respond", "status": 503}},
           {"match": {"endpoint": "send", "attempt": 2}, "action": {"type": "respond", "status": 400, "code": "bad_request"}}]},
         "assertions": ["send.failed == 300", "idempotency.fail_with_effect == 0"]}
        """

    /// No faults: a client that sends one email twice commits it twice.
    static let clean = """
        {"name": "merge-clean", "seed": 7, "timeScale": 0.001, "load": {"type": "closed", "concurrency": 8, "sends": 200},
         "assertions": ["send.ok == 200", "idempotency.duplicates == 0", "idempotency.lost == 0"]}
        """

    /// Figures that count what happened (not how long it took): a merge must reproduce them exactly.
    static func counts(_ metrics: [String: Double]) -> [String: Double] {
        let exact = [
            "send.sends", "send.ok", "send.failed", "send.dropped", "send.errors.", "attempts.errors.",
            "attempts.unreported", "attempts.unseen", "load.server_requests", "idempotency.", "jitter.samples",
            "jitter.retry_after", "jitter.cap_mismatches", "jitter.early_retries", "attempts_per_send.",
        ]
        // The key bits' bias is a statistic of the keys drawn, which differ between runs.
        return metrics.filter { key, _ in
            key != "idempotency.key_bit_bias"
                && exact.contains { key == $0 || (key.hasPrefix($0) && $0.hasSuffix(".")) }
        }
    }

    static func load(_ json: String) throws -> Scenario {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shard-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        return try Scenario.load(file: file.path)
    }

    /// Runs the scenario as `count` shards in this process, one after another, each through the
    /// file format, and returns the parts read back.
    static func shards(
        _ scenario: Scenario, count: Int,
        wrap: (@Sendable (Int) -> (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?) = { _ in nil }
    ) async throws -> [ShardPart] {
        var parts: [ShardPart] = []
        for index in 0..<count {
            let shard = try Shard(index: index, count: count)
            var experiment = LoadExperiment(scenario: scenario, progress: false)
            experiment.seams.transportWrapper = wrap(index)
            let observed = try await experiment.observe(scenario, shard: shard)
            let part = try ShardPart(observed, scenario: scenario, quick: false, shard: shard, sharedServer: false)
            parts.append(try ShardPart.decode(try part.encoded()))
        }
        return parts
    }

    static func merged(_ parts: [ShardPart], scenario: Scenario) throws -> LoadKit.Measurement {
        let (shards, server) = try ShardMerge.check(parts.map { ("part-\($0.header.shardIndex)", $0) })
        return LoadKit.Measurement.judging(
            scenario, ShardMerge.observation(shards: shards, server: server, bucketWidth: scenario.timeScale))
    }

    @Test(
        "1 shard and 4 shards give the same counts; merged p50/p99 within a bucket of one histogram of every sample",
        arguments: [recovering, failing])
    func sameAsOneProcess(json: String) async throws {
        let scenario = try Self.load(json)
        let single = LoadKit.Measurement.judging(
            scenario, try await LoadExperiment(scenario: scenario, progress: false).observe(scenario, shard: .whole))
        let parts = try await Self.shards(scenario, count: 4)
        let merged = try Self.merged(parts, scenario: scenario)
        let expected = Self.counts(single.metrics)
        #expect(expected.count >= 15, "\(expected.keys.sorted())")
        #expect(Self.counts(merged.metrics) == expected)
        let checks = AssertionCheck.judge(scenario.assertions, merged.metrics)
        #expect(checks.allSatisfy { $0.passed })
        // Each shard's own histogram, added bucket by bucket (what a shard that kept only its
        // histogram would allow), against the merged run's percentiles from every sample.
        var byBucket = Histogram()
        for part in parts {
            var own = Histogram()
            for record in part.records where record.ended.isFinite {
                own.record((record.ended - record.intended) / scenario.timeScale, scale: 1e9)
            }
            byBucket.merge(own)
        }
        let sampled = merged.history!.records.filter { $0.ended.isFinite }.count
        #expect(byBucket.count == UInt64(sampled) && sampled == Int(scenario.load.sends ?? 0))
        for (name, quantile) in [("p50", 0.5), ("p99", 0.99)] {
            let fromBuckets = byBucket.value(at: quantile)
            let fromSamples = (merged.metrics["send.latency.\(name)"] ?? .nan) * 1e6
            let bucket = Histogram.bounds(of: Histogram.index(of: UInt64(fromBuckets)))
            #expect(Double(bucket.low) <= fromSamples + 1 && fromSamples <= Double(bucket.high) + 1, "\(name)")
        }
        // Message ids stay unique across the shards' own servers (a collision would hide a lost send).
        let messages = merged.history!.records.compactMap { record -> String? in
            if case .ok(let id) = record.outcome { return id }
            return nil
        }
        #expect(Set(messages).count == messages.count)
        #expect(merged.rows.contains { $0.key == "timeseries.seconds.value" })
    }

    @Test("shards run on the real clock, so their union is judged without the virtual-time-only verdicts")
    func judgedOnTheRealClock() async throws {
        let scenario = try Self.load(Self.recovering)
        #expect(scenario.clock == .virtual)
        let parts = try await Self.shards(scenario, count: 2)
        let judged = try ShardMerge.judge(parts.map { ("part-\($0.header.shardIndex)", $0) })
        #expect(judged.scenario.clock == .real)
        #expect(judged.measurement.metrics["jitter.exact_retry_after_gap_errors"] == nil)
        #expect(judged.measurement.metrics["jitter.retry_after_mismatches"] != nil)
        // The same parts judged as a virtual run would carry them.
        #expect(try Self.merged(parts, scenario: scenario).metrics["jitter.exact_retry_after_gap_errors"] != nil)
    }

    @Test("a client that sends twice in one shard of four is caught after the merge; the real SDK passes")
    func brokenShardCaught() async throws {
        let scenario = try Self.load(Self.clean)
        let duplicating: @Sendable (any FrontmailTransport) -> any FrontmailTransport = {
            DuplicatingTransport(base: $0)
        }
        let broken = try await Self.shards(scenario, count: 4) { index in index == 2 ? duplicating : nil }
        let judged = AssertionCheck.judge(scenario.assertions, try Self.merged(broken, scenario: scenario).metrics)
        #expect(judged.contains { $0.assertion.text == "idempotency.duplicates == 0" && !$0.passed })
        let correct = try Self.merged(try await Self.shards(scenario, count: 4), scenario: scenario)
        let checks = AssertionCheck.judge(scenario.assertions, correct.metrics)
        #expect(checks.allSatisfy { $0.passed })
    }

    @Test("parts of different runs, a missing or doubled shard or a missing server part are refused, naming which")
    func refusals() async throws {
        let scenario = try Self.load(Self.recovering)
        let parts = try await Self.shards(scenario, count: 3)
        func refusal(_ parts: [ShardPart]) -> String {
            do {
                _ = try ShardMerge.check(parts.enumerated().map { ("file\($0.offset)", $0.element) })
                return "merged"
            } catch {
                return error.description
            }
        }
        #expect(refusal(Array(parts.prefix(2))).contains("shard 2/3 missing (have 2 of 3)"))
        #expect(refusal(parts + [parts[1]]).contains("shard 1/3 appears twice (file1 and file3)"))
        var reseeded = parts[2]
        reseeded.header.seed = 99
        #expect(refusal([parts[0], parts[1], reseeded]).contains("seed 99"))
        var edited = parts[1]
        edited.header.scenarioText += " "
        #expect(refusal([parts[0], edited, parts[2]]).contains("another version of the scenario file"))
        // A server part listed first (it sorts before the shards in a folder) does not hide
        // shards that ran at different rates.
        var server = parts[0]
        server.header.role = .server
        var fast = parts.map { part -> ShardPart in
            var copy = part
            copy.header.rate = 500
            return copy
        }
        fast[2].header.rate = 900
        #expect(refusal([server] + fast).contains("ran at --rate 900.0, file1 at --rate 500.0"))
        var recounted = parts[2]
        recounted.header.shardCount = 4
        #expect(refusal([parts[0], parts[1], recounted]).contains("one of 4 shards"))
        var quickened = parts[0]
        quickened.header.quick = true
        #expect(refusal([quickened, parts[1], parts[2]]).contains("--quick"))
        var shared = parts.map { part -> ShardPart in
            var copy = part
            copy.header.sharedServer = true
            return copy
        }
        #expect(refusal(shared).contains("its part (merge-recovering.server.fmshard) is missing"))
        shared.append(ShardPart(header: shared[0].header))
        shared[3].header.role = .server
        #expect(refusal(shared) == "merged")
        #expect(refusal(parts) == "merged")
    }

}
