import FakeFrontmail
import Foundation
import Frontmail
import Synchronization
import Testing

@testable import LoadKit

/// `--shard i/N`: how sends are dealt, and that the shards' schedules add up to the unsharded one.
@Suite("shards: dealing the load")
struct ShardDealingTests {
    @Test("i/N and env/N parse; bad values are refused with the reason")
    func parsing() throws {
        #expect(try Shard(parsing: "1/4", environment: [:]) == Shard(index: 1, count: 4))
        #expect(try Shard(parsing: "env/4", environment: ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 3, count: 4))
        let bad: [(String, [String: String], String)] = [
            ("4/4", [:], "index must be 0 to 3"),
            ("-1/4", [:], "index must be 0 to 3"),
            ("0/0", [:], "count must be 1 to"),
            ("x/2", [:], "needs i/N"),
            ("1", [:], "needs i/N"),
            ("env/2", [:], "needs JOB_COMPLETION_INDEX"),
            ("env/2", ["JOB_COMPLETION_INDEX": "one"], "must be a whole number"),
            ("env/2", ["JOB_COMPLETION_INDEX": "2"], "index must be 0 to 1"),
        ]
        for (text, environment, reason) in bad {
            #expect(throws: Shard.ParseError.self, "\(text)") { try Shard(parsing: text, environment: environment) }
            do {
                _ = try Shard(parsing: text, environment: environment)
            } catch {
                #expect(error.description.contains(reason), "\(text): \(error.description)")
            }
        }
    }

    @Test("shares add up to the whole for any count, and round-robin numbers cover every send once")
    func shares() throws {
        for count in [1, 2, 3, 4, 7] {
            for total in [0, 1, 5, 64, 1001] {
                let shards = try (0..<count).map { try Shard(index: $0, count: count) }
                #expect(shards.map { $0.share(of: total) }.reduce(0, +) == total)
                let numbers = shards.flatMap { shard in (0..<shard.share(of: total)).map(shard.global) }
                #expect(numbers.sorted() == Array(0..<total))
                #expect(
                    shards.allSatisfy { shard in
                        (0..<shard.share(of: total)).allSatisfy { shard.owns(shard.global($0)) }
                    })
            }
        }
    }

    @Test("an open loop's shards start exactly the unsharded schedule: every send once, at its own time")
    func openSchedule() async throws {
        var load = LoadSettings()
        load.kind = .open
        load.stages = [
            LoadSettings.Stage(rate: 20_000, duration: TimeSpan(seconds: 0.02)),
            LoadSettings.Stage(rate: 5_000, duration: TimeSpan(seconds: 0.03)),
        ]
        load.maxInFlight = 10_000
        let whole = try await Self.schedule(load, shard: .whole)
        #expect(whole.count == 400 + 150)
        for count in [2, 3] {
            var union: [(number: Int, offset: Double)] = []
            for index in 0..<count {
                let part = try await Self.schedule(load, shard: Shard(index: index, count: count))
                #expect(part.allSatisfy { $0.number % count == index })
                union += part
            }
            union.sort { $0.number < $1.number }
            #expect(union.map(\.number) == whole.map(\.number), "\(count) shards")
            // Each shard's intended times, from its own start, are the unsharded ones.
            let drift = zip(union, whole).map { abs($0.offset - $1.offset) }.max() ?? 0
            #expect(drift < 1e-9, "\(count) shards")
        }
    }

    @Test("a closed loop's shards split the senders and the sends; numbers stay unique")
    func closedSplit() async throws {
        var load = LoadSettings()
        load.concurrency = 5
        load.sends = 23
        var numbers: [Int] = []
        for index in 0..<3 {
            let shard = try Shard(index: index, count: 3)
            let history = History(now: realClock(), shard: shard)
            let peak = Mutex((now: 0, most: 0))
            await LoadDriver.run(load, history: history) { _ in
                peak.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                try? await Task.sleep(nanoseconds: 1_000_000)
                peak.withLock { $0.now -= 1 }
            }
            #expect(history.records.count == shard.share(of: 23))
            #expect(peak.withLock { $0.most } <= shard.share(of: 5))
            numbers += history.records.map(\.sendID)
        }
        #expect(numbers.sorted() == Array(0..<23))
    }

    /// The sends an open loop schedules: (number in the unsharded run, intended time from the
    /// schedule's start).
    static func schedule(_ load: LoadSettings, shard: Shard) async throws -> [(number: Int, offset: Double)] {
        let history = History(now: realClock(), shard: shard)
        let start = history.now()
        await LoadDriver.run(load, history: history) { _ in }
        // The loop's start is a moment after `start`: recover it from the first send's number.
        let records = history.records
        guard let first = records.first else { return [] }
        let origin = first.intended - Double(first.sendID) / 20_000
        #expect(origin >= start)
        return records.map { ($0.sendID, $0.intended - origin) }
    }

    @Test("scenarios that cannot be sharded say why, naming the field")
    func problems() throws {
        let two = try Shard(index: 0, count: 2)
        let cases: [(String, Bool, String?)] = [
            (#"{"name": "a", "load": {"type": "closed", "concurrency": 4, "sends": 8}}"#, false, nil),
            (#"{"name": "b", "load": {"type": "closed", "concurrency": 1, "sends": 8}}"#, false, "load.concurrency"),
            (#"{"name": "c", "transport": "socket", "load": {"type": "closed", "sends": 8}}"#, false, "--workers"),
            (#"{"name": "c", "transport": "socket", "load": {"type": "closed", "sends": 8}}"#, true, nil),
            (
                #"{"name": "d", "load": {"type": "closed", "sends": 8}, "plan": {"capacity": {"workers": 4, "serviceTime": "1ms"}}}"#,
                false, "plan.capacity"
            ),
            (
                #"{"name": "e", "client": {"explicitKeys": {"pool": 4, "sameBody": true}}, "load": {"type": "closed", "sends": 8}}"#,
                false, "client.explicitKeys"
            ),
            (
                #"{"name": "f", "load": {"type": "open", "rate": {"fraction": 0.5, "of": "inProcessCore"}, "duration": "1s"}}"#,
                false, "--rate"
            ),
            (#"{"name": "g", "timeScale": 0.01, "cancellation": {"samples": 5}}"#, false, "cancellation"),
            // Exact metrics exist on virtual time only, and shards run on the real clock: a run on
            // --workers ran them sharded and read n/a; the scenario now runs whole.
            (
                #"{"name": "h", "load": {"type": "closed", "concurrency": 4, "sends": 8}, "assertions": ["jitter.exact_retry_after_gap_errors == 0"]}"#,
                false, "jitter.exact_retry_after_gap_errors, which only a run on virtual time measures"
            ),
            (
                #"{"name": "i", "load": {"type": "closed", "concurrency": 4, "sends": 8}, "quick": {"assertions": ["send.ok >= 0.5 * attempts.exact_timeouts"]}}"#,
                false, "attempts.exact_timeouts"
            ),
            (
                #"{"name": "j", "clock": "real", "load": {"type": "closed", "concurrency": 4, "sends": 8}, "assertions": ["jitter.ks_d < jitter.ks_critical"]}"#,
                false, nil
            ),
        ]
        for (json, shared, field) in cases {
            let scenario = try makeScenario(json)
            let problem = scenario.shardingProblem(two, sharedServer: shared)
            if let field {
                #expect(problem?.contains(field) == true, "\(json): \(problem ?? "none")")
            } else {
                #expect(problem == nil, "\(json)")
            }
            #expect(scenario.shardingProblem(.whole, sharedServer: false) == nil)
        }
    }
}

/// The raw results a shard writes, read back exactly; a damaged file is an error, never a crash.
@Suite("shards: raw results")
struct ShardFileTests {
    static func samplePart() throws -> ShardPart {
        var header = ShardPart.Header(
            role: .shard, scenario: "s", scenarioFile: "s.json", scenarioText: "{\"name\": \"s\"}", quick: true,
            seed: 9,
            shardIndex: 1, shardCount: 3, sharedServer: false, wallStart: 1_700_000_000.25, elapsed: 2.5, end: 2.75,
            interrupted: false)
        header.rate = 1234.5
        var part = ShardPart(header: header)
        var ok = History.Record(sendID: 4, intended: 0.5)
        ok.started = 0.5
        ok.ended = 0.75
        ok.outcome = .ok(messageID: "msg_00000004")
        ok.attempts = 2
        ok.firstKey = "key-é"
        ok.indeterminateAttempt = true
        ok.attemptStatuses = [503, 202]
        var failed = History.Record(sendID: 7, intended: 1)
        failed.started = 1
        failed.ended = 1.25
        failed.outcome = .failed(code: .rateLimited, status: 429)
        failed.keyChanged = true
        var network = History.Record(sendID: 10, intended: 1.5)
        network.started = 1.5
        network.ended = 1.75
        network.outcome = .failed(code: .networkError, status: nil)
        var dropped = History.Record(sendID: 13, intended: 2)
        dropped.outcome = .dropped
        part.records = [ok, failed, network, dropped, History.Record(sendID: 16, intended: 2.5)]
        part.backoffs = [
            History.Backoff(sendID: 4, afterAttempt: 0, delay: 0.125, cause: .jitter(cap: 0.3)),
            History.Backoff(sendID: 7, afterAttempt: 1, delay: 2, cause: .retryAfter(2)),
        ]
        part.attemptErrors = ["server_error": 1, "rate_limited": 3]
        part.attemptBuckets = [3, 0, 5]
        part.keys = ["", "key-é", "other"]
        var first = LedgerRecord(arrival: 0.5, connection: 7, endpoint: .send, keyID: 1, attempt: 1)
        first.finished = 0.6
        first.fingerprint = 0xDEAD_BEEF_0000_0001
        first.benchSendID = 4
        first.retryAfter = 1.5
        first.rule = 2
        first.status = 503
        first.action = .fault(.respond)
        first.clientGone = true
        first.defects = [.queryToken, .privateKey]
        var second = LedgerRecord(arrival: 0.7, connection: 8, endpoint: .status, keyID: 0, attempt: 1)
        second.message = 4
        second.effect = true
        second.action = .dropped
        part.ledger = [first, second]
        part.capacity = CapacitySeries(
            width: 0.01, busy: [1.5, 2], waiting: [0, 0.25], served: [3, 4], dead: [0, 1])
        return part
    }

    @Test("a part reads back exactly what was written, NaNs and all")
    func roundTrip() throws {
        let part = try Self.samplePart()
        let back = try ShardPart.decode(try part.encoded())
        #expect(back.header == part.header)
        #expect(back.records.count == part.records.count)
        for (a, b) in zip(back.records, part.records) {
            #expect(a.sendID == b.sendID && a.intended == b.intended && a.outcome == b.outcome)
            #expect(a.started.bitPattern == b.started.bitPattern && a.ended.bitPattern == b.ended.bitPattern)
            #expect(a.attempts == b.attempts && a.firstKey == b.firstKey && a.keyChanged == b.keyChanged)
            #expect(a.indeterminateAttempt == b.indeterminateAttempt && a.attemptStatuses == b.attemptStatuses)
        }
        #expect(back.backoffs.map(\.sendID) == [4, 7] && back.backoffs.map(\.cause) == part.backoffs.map(\.cause))
        #expect(back.attemptErrors == part.attemptErrors && back.attemptBuckets == part.attemptBuckets)
        #expect(back.keys == part.keys)
        #expect(back.ledger.count == 2)
        for (a, b) in zip(back.ledger, part.ledger) {
            #expect(a.arrival == b.arrival && a.finished.bitPattern == b.finished.bitPattern)
            #expect(a.fingerprint == b.fingerprint && a.benchSendID == b.benchSendID && a.connection == b.connection)
            #expect(a.keyID == b.keyID && a.attempt == b.attempt && a.message == b.message)
            #expect(a.retryAfter.bitPattern == b.retryAfter.bitPattern && a.rule == b.rule && a.status == b.status)
            #expect(a.endpoint == b.endpoint && a.action == b.action && a.effect == b.effect)
            #expect(a.clientGone == b.clientGone && a.defects == b.defects)
        }
        #expect(back.capacity?.busy == [1.5, 2] && back.capacity?.dead == [0, 1] && back.capacity?.width == 0.01)
    }

    @Test("a truncated, foreign, newer or damaged file is refused with the reason, never a crash")
    func damaged() throws {
        let bytes = try Self.samplePart().encoded()
        #expect(throws: (any Error).self) { try ShardPart.decode(Array(bytes.prefix(bytes.count - 1))) }
        #expect(throws: (any Error).self) { try ShardPart.decode(Array("not a shard".utf8)) }
        #expect(throws: (any Error).self) { try ShardPart.decode(bytes + [0]) }
        var newer = try Self.samplePart()
        newer.header.version = 99
        do {
            _ = try ShardPart.decode(try newer.encoded())
            Issue.record("a newer schema was read")
        } catch {
            #expect("\(error)".contains("version 99"), "\(error)")
        }
        // Every truncation and many single-byte changes: an error or a part, never a trap.
        var random = SystemRandomNumberGenerator()
        for length in stride(from: 0, to: bytes.count, by: 7) { _ = try? ShardPart.decode(Array(bytes.prefix(length))) }
        for _ in 0..<2000 {
            var changed = bytes
            let at = Int.random(in: 0..<changed.count, using: &random)
            changed[at] = UInt8.random(in: 0...255, using: &random)
            _ = try? ShardPart.decode(changed)
        }
        // Values merge counts, indexes or shifts clocks by are checked, naming the field.
        let header = try Self.samplePart().header
        let outOfRange: [(String, (inout ShardPart.Header) -> Void)] = [
            ("shardCount: must be 1-1024, not 0", { $0.shardCount = 0 }),
            ("shardIndex: must be 0-2, not 5", { $0.shardIndex = 5 }),
            ("wallStart: must be a finite number", { $0.wallStart = -1 }),
            ("elapsed: must be a finite number", { $0.elapsed = -2 }),
            ("rate: must be", { $0.rate = 0 }),
            ("scenario: '../x' is not a scenario name", { $0.scenario = "../x" }),
        ]
        for (reason, change) in outOfRange {
            var part = try Self.samplePart()
            change(&part.header)
            #expect(part.header.problem?.contains(reason) == true, "\(reason): \(part.header.problem ?? "accepted")")
            do {
                _ = try ShardPart.decode(try part.encoded())
                Issue.record("\(reason): read")
            } catch {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
        #expect(header.problem == nil)
        var flat = try Self.samplePart()
        flat.capacity = CapacitySeries(width: 0, busy: [], waiting: [], served: [], dead: [])
        #expect(throws: (any Error).self) { try ShardPart.decode(try flat.encoded()) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).fmshard")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes.prefix(100)).write(to: file)
        do {
            _ = try ShardPart.read(file.path)
            Issue.record("a truncated file was read")
        } catch {
            #expect(error.description.hasPrefix(file.path + ": not a shard's results"), "\(error)")
        }
    }
}
