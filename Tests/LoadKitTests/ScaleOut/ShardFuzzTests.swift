import FakeFrontmail
import Foundation
import Frontmail
import TestSupport
import Testing

@testable import LoadKit

/// `.fmshard` files damaged or edited: bit flips, truncations and swapped ranges are refused by
/// the checksum or read as valid parts that merge without a trap; hostile values written with a
/// fresh checksum are refused naming their field; a shard relabelled as another is refused.
@Suite("input fuzzing: shard files", .onItsOwnThread)
struct ShardFuzzTests {
    /// Two shards of a scenario with retries and backoffs, run once for every test here.
    static let made = Task {
        try await ShardMergeTests.shards(try ShardMergeTests.load(ShardMergeTests.recovering), count: 2)
    }

    static func parts() async throws -> [ShardPart] { try await made.value }

    /// Reads `bytes` as shard `index`'s part and, when it reads, merges it with the other shard.
    static func readAndMerge(_ bytes: [UInt8], index: Int, parts: [ShardPart]) -> Bool {
        guard let damaged = try? ShardPart.decode(bytes) else { return false }
        var group = parts
        group[index] = damaged
        if let (scenario, measurement, _) = try? ShardMerge.judge(group.map { ("part", $0) }) {
            #expect(measurement.rows.contains { $0.key == "send.sends.value" }, "\(scenario.name)")
        }
        return true
    }

    @Test("bit flips, truncations and swapped ranges: refused, or a part that merges without a trap")
    func damagedBytes() async throws {
        let parts = try await Self.parts()
        var random = InputFuzzTests.Generator(state: 20_261_203)
        let encoded = try parts.map { try $0.encoded() }
        var refused = 0
        var unchanged = 0
        for round in 0..<300 {
            let index = random.below(parts.count)
            let original = encoded[index]
            var bytes = original
            switch round % 3 {
            case 0:
                for _ in 0...random.below(3) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
            case 1:
                bytes = Array(bytes.prefix(random.below(bytes.count)))
            default:
                let length = 1 + random.below(16)
                let a = random.below(bytes.count - length)
                let b = random.below(bytes.count - length)
                let first = Array(bytes[a..<(a + length)])
                bytes.replaceSubrange(a..<(a + length), with: bytes[b..<(b + length)])
                bytes.replaceSubrange(b..<(b + length), with: first)
            }
            // Two flips of one bit, or a swap of equal ranges, leave the file as it was.
            if bytes == original {
                unchanged += 1
                #expect(Self.readAndMerge(bytes, index: index, parts: parts))
            } else if Self.readAndMerge(bytes, index: index, parts: parts) {
                Issue.record("round \(round): a damaged file was read")
            } else {
                refused += 1
            }
        }
        #expect(refused + unchanged == 300 && refused > 250, "refused \(refused), unchanged \(unchanged)")
    }

    /// One hostile value in one field of a part, each out of its range.
    static let edits: [(String, @Sendable (inout ShardPart) -> Void)] = [
        ("ends (", { $0.records[0].started = $0.records[0].ended + 1 }),
        ("records[0].intended", { $0.records[0].intended = .nan }),
        ("records[0].started", { $0.records[0].started = 1e300 }),
        ("records[0].ended", { $0.records[0].ended = -.infinity }),
        // A send with an outcome and no start (ok or failed): merging it trapped in the time series.
        ("records[0]: it has an outcome but no start", { $0.records[0].started = .nan }),
        (
            "records[0]: it has an outcome but no start",
            {
                $0.records[0].started = .nan
                $0.records[0].outcome = .failed(code: .timeout, status: nil)
            }
        ),
        ("records[0].attempts", { $0.records[0].attempts = -1 }),
        ("records[0].attempts", { $0.records[0].attempts = Int.max }),
        ("records[0].sendID", { $0.records[0].sendID = -5 }),
        ("is not a send of shard", { $0.records[0].sendID += 1 }),
        ("listed twice", { $0.records.append($0.records[0]) }),
        ("backoffs[0].afterAttempt", { $0.backoffs[0].afterAttempt = -1 }),
        ("backoffs[0].delay", { $0.backoffs[0].delay = .nan }),
        ("backoffs[0].cap", { $0.backoffs[0].cause = .jitter(cap: 1e300) }),
        ("attemptErrors", { $0.attemptErrors["service_unavailable"] = Int.max }),
        ("attemptBuckets[0]", { $0.attemptBuckets[0] = -3 }),
        ("ledger[0].arrival", { $0.ledger[0].arrival = .infinity }),
        ("ledger[0].benchSendID", { $0.ledger[0].benchSendID = Int64.max }),
        ("wallStart", { $0.header.wallStart = 1e300 }),
        ("end", { $0.header.end = .nan }),
        ("elapsed", { $0.header.elapsed = -1 }),
    ]

    @Test("a hostile value written with a fresh checksum is refused, naming its field")
    func hostileValues() async throws {
        let parts = try await Self.parts()
        #expect(!parts[0].backoffs.isEmpty && !parts[0].attemptBuckets.isEmpty && !parts[0].ledger.isEmpty)
        for (field, edit) in Self.edits {
            var part = parts[0]
            edit(&part)
            do {
                _ = try ShardPart.decode(try part.encoded())
                Issue.record("accepted an edit of \(field)")
            } catch {
                #expect("\(error)".contains(field), "\(field): \(error)")
            }
        }
        // Written as they are, both parts read back and merge.
        for part in parts { #expect(throws: Never.self) { try ShardPart.decode(try part.encoded()) } }
        #expect(throws: Never.self) { try ShardMerge.judge(parts.map { ("part", $0) }) }
    }

    @Test("shard 0 copied and relabelled as shard 1 is refused: its sends are not shard 1's")
    func relabelled() async throws {
        let parts = try await Self.parts()
        var copy = parts[0]
        copy.header.shardIndex = 1
        #expect(throws: (any Error).self) { try ShardPart.decode(try copy.encoded()) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relabel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: file) }
        for (index, part) in [parts[0], copy].enumerated() {
            try part.write(
                to: file.appendingPathComponent(
                    ShardPart.fileName(
                        scenario: part.header.scenario, role: .shard, shard: Shard(uncheckedIndex: index, count: 2))))
        }
        #expect(throws: (any Error).self) { try ShardMerge.merge(paths: [file.path]) }
    }

    @Test("shard 0 of 2 relabelled as a whole run (0 of 1) and resealed is refused: it holds half the sends")
    func relabelledWhole() async throws {
        let parts = try await Self.parts()
        var whole = parts[0]
        whole.header.shardCount = 1
        let read = try ShardPart.decode(try whole.encoded())
        do {
            _ = try ShardMerge.judge([("whole", read)])
            Issue.record("a half run merged as a whole one")
        } catch {
            #expect(error.description.contains("relabelled"), "\(error)")
        }
        // The same part marked interrupted is a partial run, as it says: merged.
        var partial = read
        partial.header.interrupted = true
        #expect(throws: Never.self) { try ShardMerge.judge([("partial", partial)]) }
        // Both real shards hold their shares: merged.
        #expect(throws: Never.self) { try ShardMerge.judge(parts.map { ("part", $0) }) }
    }

    @Test(
        "another run's server part or shard is refused by identity: a different server id, a different run id, or a start outside the server's lifetime"
    )
    func anotherRunsServer() async throws {
        let parts = try await Self.parts().map { part -> ShardPart in
            var copy = part
            copy.header.sharedServer = true
            copy.header.serverRunID = "5e1f"
            copy.header.runID = "run-a"
            return copy
        }
        var server = ShardPart(header: parts[0].header)
        server.header.role = .server
        #expect(throws: Never.self) { try ShardMerge.check((parts + [server]).map { ("f", $0) }) }
        func refused(_ edit: (inout [ShardPart], inout ShardPart) -> Void, _ reason: String) {
            var shards = parts
            var other = server
            edit(&shards, &other)
            do {
                _ = try ShardMerge.check((shards + [other]).map { ("f", $0) })
                Issue.record("accepted: \(reason)")
            } catch {
                #expect(error.description.contains(reason), "\(error)")
            }
        }
        // The server part of another server (same scenario, same clock window): its id differs.
        refused({ _, server in server.header.serverRunID = "77aa" }, "is the part of server '77aa'")
        // A shard that sent to another server.
        refused({ shards, _ in shards[1].header.serverRunID = "77aa" }, "it sent to server '77aa'")
        // A shard of another run (another --run-id).
        refused({ shards, _ in shards[1].header.runID = "run-b" }, "belongs to run 'run-b'")
        // Started outside the server's lifetime.
        refused({ shards, _ in shards[1].header.wallStart += 3600 }, "outside the lifetime")
        // Ids that could name a path are refused where the header is read.
        var bad = parts[0]
        bad.header.runID = "../../etc"
        #expect(bad.header.problem?.contains("runID") == true)
        bad = parts[0]
        bad.header.serverRunID = nil
        #expect(bad.header.problem?.contains("serverRunID: missing") == true)
    }

    @Test(
        "run ids: letters, digits, - and _, 1-64 characters; anything else names the reason",
        arguments: [
            ("20261203T164020Z", true), ("run-a_1", true), (String(repeating: "a", count: 64), true), ("", false),
            (String(repeating: "a", count: 65), false), ("../x", false), ("a/b", false), ("a b", false), ("é", false),
            ("a\u{0}", false), ("ab.c", false),
        ])
    func runIDs(text: String, valid: Bool) {
        #expect((RunID.problem(text) == nil) == valid, "\(text)")
    }

    @Test("fuzzed run ids: every accepted one is safe as a file name part, every refused one says why")
    func fuzzedRunIDs() {
        var random = SeededRandom(seed: 4242)
        let alphabet = Array("aZ09-_./\\ %é\u{0}\n:T") + ["..", "\u{200B}"].flatMap { Array($0) }
        var accepted = 0
        for _ in 0..<2_000 {
            let length = Int(random.next() % 80)
            let text = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            if let problem = RunID.problem(text) {
                #expect(problem.contains("not a run id"))
            } else {
                accepted += 1
                #expect(!text.isEmpty && text.count <= 64 && !text.contains("/") && !text.contains("."))
                #expect(text.utf8.allSatisfy { $0 < 128 && $0 > 32 })
            }
        }
        #expect(accepted > 10)
    }

    @Test("fuzzed identity answers: a valid run id is taken, anything else is refused with a reason, never a trap")
    func fuzzedIdentityAnswers() throws {
        var random = SeededRandom(seed: 777)
        let valid = Data(#"{"run_id": "5e1f00"}"#.utf8)
        #expect(try ShardRun.identity(status: 200, body: valid).get() == "5e1f00")
        #expect((try? ShardRun.identity(status: 404, body: valid).get()) == nil)
        #expect((try? ShardRun.identity(status: 200, body: Data(#"{"run_id": "../x"}"#.utf8)).get()) == nil)
        #expect((try? ShardRun.identity(status: 200, body: valid + Data(count: 5000)).get()) == nil)
        var taken = 0
        for round in 0..<2_000 {
            var body = valid
            switch round % 4 {
            case 0: body = Data((0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            case 1: body[Int(random.next() % UInt64(body.count))] ^= UInt8(1 << (random.next() % 8))
            case 2: body = body.prefix(Int(random.next() % UInt64(body.count)))
            default:
                let value = String(repeating: "a", count: Int(random.next() % 100))
                body = Data(#"{"run_id": "\#(value)", "x": [1, {"run_id": 2}]}"#.utf8)
            }
            switch ShardRun.identity(status: 200, body: body) {
            case .success(let id):
                taken += 1
                #expect(RunID.problem(id) == nil)
            case .failure(let problem):
                #expect(!problem.reason.isEmpty)
            }
        }
        #expect(taken > 10)
    }
}
