import Foundation
import Frontmail
import Synchronization
import TestSupport
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Rewrites the SDK's idempotency key on the way out, the same way on every attempt of a send: a
/// stand-in for an SDK that makes its keys some other way than from a random source.
struct KeyRewritingTransport: FrontmailTransport {
    enum Kind: String, Sendable {
        /// A v4-shaped key from a hash of the body (a cache of recent sends, a content hash).
        case bodyHash
        /// The SDK's key with its version digit made 1 (a time-based UUID).
        case version1
        /// A per-client counter in v4 shape.
        case counter
    }

    let inner: any FrontmailTransport
    let kind: Kind
    let counters: Counters

    final class Counters: Sendable {
        let byKey = Mutex<[String: UInt64]>([:])
    }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let key = request.headers["Idempotency-Key"] else { return try await inner.send(request) }
        var rewritten = request
        rewritten.headers.set(name: "Idempotency-Key", value: rewrite(key, body: request.body ?? Data()))
        return try await inner.send(rewritten)
    }

    func rewrite(_ key: String, body: Data) -> String {
        switch kind {
        case .bodyHash:
            return Self.v4(Fingerprint.of(body), Fingerprint.of(body.reversed()))
        case .version1:
            var characters = Array(key)
            characters[14] = "1"
            return String(characters)
        case .counter:
            let number = counters.byKey.withLock { table in
                if let number = table[key] { return number }
                let number = UInt64(table.count)
                table[key] = number
                return number
            }
            return Self.v4(0, number)
        }
    }

    /// 128 bits as a version-4, variant-10 UUID string.
    static func v4(_ high: UInt64, _ low: UInt64) -> String {
        let high = high & ~(0xF << 12) | (0x4 << 12)
        let low = low & ~(0b11 << 62) | (0b10 << 62)
        let hex = String(format: "%016llx%016llx", high, low)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

/// `identical-bodies`: every send's body the same bytes, the bench id in a header the harness adds
/// under the SDK; each send must get its own random v4 key and exactly one effect.
@Suite("identical bodies: two identical messages are two emails, keys are random v4 UUIDs", .onItsOwnThread)
struct IdenticalBodiesTests {
    @Test("a v4 UUID is recognised in either case; other versions, variants and shapes are not")
    func v4Shape() {
        #expect(KeyShape.v4Bits("0f8fad5b-d9cb-469f-a165-70867728950e") != nil)
        #expect(KeyShape.v4Bits("0F8FAD5B-D9CB-469F-A165-70867728950E") != nil)
        #expect(KeyShape.v4Bits(UUID().uuidString) != nil)
        for bad in [
            "0f8fad5b-d9cb-169f-a165-70867728950e",  // version 1
            "0f8fad5b-d9cb-469f-c165-70867728950e",  // variant 110
            "0f8fad5b-d9cb-469f-7165-70867728950e",  // variant 0
            "0f8fad5bd9cb-469f-a165-70867728950e-",  // hyphens misplaced
            "0f8fad5b-d9cb-469f-a165-70867728950",  // short
            "0f8fad5b-d9cb-469f-a165-70867728950e0",  // long
            "0g8fad5b-d9cb-469f-a165-70867728950e",  // not hex
            "bench-key-1", "", "０f8fad5b-d9cb-469f-a165-70867728950e",
        ] {
            #expect(KeyShape.v4Bits(bad) == nil, "\(bad)")
        }
        #expect(KeyShape.randomBits.count == 122)
    }

    @Test("bit bias: seeded random v4 keys score low, a counter or one stuck bit scores near √n")
    func bitBias() {
        var random = SeededRandom(seed: 9)
        let keys = (0..<4000).map { _ in KeyRewritingTransport.v4(random.next(), random.next()) }
        let shape = KeyShape(keys)
        #expect(shape.notV4 == 0)
        #expect(shape.bitBias < 4.5, "\(shape.bitBias)")
        let counter = KeyShape((0..<4000).map { KeyRewritingTransport.v4(0, UInt64($0)) })
        #expect(counter.bitBias > 60)
        // One bit stuck at 1 in otherwise random keys: z = √n.
        var stuck = SeededRandom(seed: 10)
        let oneBit = KeyShape((0..<4000).map { _ in KeyRewritingTransport.v4(stuck.next() | 1 << 63, stuck.next()) })
        #expect(abs(oneBit.bitBias - 4000.0.squareRoot()) < 1e-9)
        #expect(KeyShape(["x", "y"]).notV4 == 2)
        #expect(KeyShape(["x", "y"]).bitBias.isNaN)
    }

    static func run(
        _ name: String, broken: KeyRewritingTransport.Kind? = nil
    ) async throws -> ScenarioResult {
        try await runStandardQuick(name) { runner in
            if let broken {
                let counters = KeyRewritingTransport.Counters()
                runner.seams.transportWrapper = { KeyRewritingTransport(inner: $0, kind: broken, counters: counters) }
            }
        }
    }

    static func failed(_ result: ScenarioResult) -> Set<String> { failedAssertions(result) }

    @Test("the real SDK: every identical send its own key and exactly one effect, the bench id from the header")
    func correctPasses() async throws {
        let result = try await Self.run("identical-bodies")
        #expect(result.passed, "\(result.verdictLine)")
        #expect(result.metrics["idempotency.effects"] == 2000)
        #expect(result.metrics["idempotency.unexpected"] == 0)
    }

    @Test(
        "a wrong key source fails identical-bodies and its verdict names it",
        arguments: [
            (KeyRewritingTransport.Kind.bodyHash, "idempotency.key_collisions == 0"),
            (.version1, "idempotency.keys_not_v4 == 0"),
            (.counter, "idempotency.key_bit_bias < 6"),
        ])
    func brokenKeys(kind: KeyRewritingTransport.Kind, caughtBy: String) async throws {
        let result = try await Self.run("identical-bodies", broken: kind)
        #expect(Self.failed(result).contains(caughtBy), "\(result.verdictLine)")
    }

    @Test("keys from a hash of the body pass every scenario whose bodies differ, and merge identical sends here")
    func bodyHashMergesSends() async throws {
        let unique = try await Self.run("healthy-baseline", broken: .bodyHash)
        #expect(unique.passed, "\(unique.verdictLine)")
        let identical = try await Self.run("identical-bodies", broken: .bodyHash)
        let failures = Self.failed(identical)
        #expect(failures.contains("idempotency.effects == send.sends"), "\(identical.verdictLine)")
        #expect((identical.metrics["idempotency.effects"] ?? 2000) < 10)
    }

    @Test("the fake joins a request to its send by the header only when the body carries no bench id")
    func headerFallback() {
        #expect(FakeFrontmailCore.benchID("42") == 42)
        #expect(FakeFrontmailCore.benchID("0") == 0)
        for bad in ["", "-1", "+1", "1e3", " 1", "1 ", "٤٢", String(repeating: "9", count: 19), "0x10"] {
            #expect(FakeFrontmailCore.benchID(bad) == -1, "\(bad)")
        }
        #expect(FakeFrontmailCore.benchID(String(repeating: "9", count: 18)) == 999_999_999_999_999_999)
    }
}
