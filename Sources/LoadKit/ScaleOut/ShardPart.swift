import FakeFrontmail
import Foundation
import Frontmail

/// What one shard (or the shared server) saw, raw, so that `merge` can judge the union exactly:
/// the client's history with its backoffs, and the server's ledger with its capacity series.
/// Written as `<scenario>.shard-<i>-of-<N>.fmshard` (`<scenario>.server.fmshard` for a shared
/// server); the format is documented in docs/distributed.md.
package struct ShardPart {
    package struct Header: Codable, Sendable, Hashable {
        package enum Role: String, Codable, Sendable { case shard, server }

        var format = ShardPart.format
        var version = ShardPart.version
        var role: Role
        var scenario: String
        /// The scenario file as given, and its bytes: `merge` judges with exactly this scenario.
        var scenarioFile: String
        var scenarioText: String
        var quick: Bool
        /// The seed the run used (a `--seed` override included).
        var seed: UInt64
        var shardIndex: Int
        var shardCount: Int
        /// The shards reached one server over sockets (its ledger is in the server's part).
        var sharedServer: Bool
        /// Wall-clock seconds since 1970 of this part's clock zero (to line clocks up).
        var wallStart: Double
        /// Seconds the load ran, and the part's clock when it ended.
        var elapsed: Double
        var end: Double
        var interrupted: Bool
        /// The open loop's rate given with `--rate` (it replaced the file's, calibrated or not).
        package var rate: Double?
        /// The run this part belongs to: `--run-id` (a `--workers` parent gives its own), else the
        /// shared server's id, else empty. Every shard of one merge must carry the same.
        var runID: String? = ""
        /// The shared server's identity (`FakeFrontmailCore.runID`): for a shard, the server it sent
        /// to; for the server's part, its own. `merge` refuses a server part of another server.
        var serverRunID: String?
    }

    static let format = "frontmail-shard"
    /// 2: a checksum before the end mark, and every value range-checked when read. 3: the run's
    /// and the shared server's identity in the header.
    static let version = 4
    static let magic = Array("FMSHARD\n".utf8)
    static let fileExtension = "fmshard"

    package var header: Header
    package var records: [History.Record] = []
    var backoffs: [History.Backoff] = []
    var attemptErrors: [String: Int] = [:]
    var attemptBuckets: [Int] = []
    var ledger: [LedgerRecord] = []
    /// The ledger's key table (`keys[0]` is the empty placeholder).
    var keys: [String] = [""]
    var capacity: CapacitySeries?

    /// `<scenario>.shard-<i>-of-<N>.fmshard` or `<scenario>.server.fmshard`.
    package static func fileName(scenario: String, role: Header.Role, shard: Shard) -> String {
        switch role {
        case .shard: return "\(scenario).shard-\(shard.index)-of-\(shard.count).\(fileExtension)"
        case .server: return "\(scenario).server.\(fileExtension)"
        }
    }

    var label: String {
        header.role == .server ? "the server part" : "shard \(header.shardIndex)/\(header.shardCount)"
    }
}

// MARK: - Writing

extension ShardPart {
    func encoded() throws -> [UInt8] {
        let json = try JSONEncoder().encode(header)
        var out = ByteWriter(capacity: 256 + records.count * 96 + ledger.count * 72)
        out.raw(Self.magic)
        out.u32(UInt32(json.count))
        out.raw(Array(json))
        out.int(records.count)
        for record in records { Self.write(record, &out) }
        out.int(backoffs.count)
        for backoff in backoffs {
            out.int(backoff.sendID)
            out.int(backoff.afterAttempt)
            out.f64(backoff.delay)
            switch backoff.cause {
            case .jitter(let cap):
                out.u8(0)
                out.f64(cap)
            case .retryAfter(let seconds):
                out.u8(1)
                out.f64(seconds)
            }
        }
        out.int(attemptErrors.count)
        for (code, count) in attemptErrors.sorted(by: { $0.key < $1.key }) {
            out.string(code)
            out.int(count)
        }
        out.int(attemptBuckets.count)
        for bucket in attemptBuckets { out.int(bucket) }
        out.int(keys.count)
        for key in keys { out.string(key) }
        out.int(ledger.count)
        for record in ledger { Self.write(record, &out) }
        out.bool(capacity != nil)
        if let capacity {
            out.f64(capacity.width)
            out.int(capacity.busy.count)
            for value in capacity.busy { out.f64(value) }
            out.int(capacity.waiting.count)
            for value in capacity.waiting { out.f64(value) }
            out.int(capacity.served.count)
            for value in capacity.served { out.int(value) }
            out.int(capacity.dead.count)
            for value in capacity.dead { out.int(value) }
        }
        out.u64(FNV1a.hash(out.bytes[...]))
        out.raw(Array("END\n".utf8))
        return out.bytes
    }

    /// Writes the part to `url` (through a temporary file, so a reader never sees half of it).
    package func write(to url: URL) throws {
        try Data(encoded()).write(to: url, options: .atomic)
    }

    private static func write(_ record: History.Record, _ out: inout ByteWriter) {
        out.int(record.sendID)
        out.f64(record.intended)
        out.f64(record.started)
        out.f64(record.ended)
        switch record.outcome {
        case .pending: out.u8(0)
        case .ok(let messageID):
            out.u8(1)
            out.string(messageID)
        case .failed(let code, let status):
            out.u8(2)
            out.string(code.rawValue)
            out.int(status ?? -1)
        case .dropped: out.u8(3)
        }
        out.int(record.attempts)
        out.optionalString(record.firstKey)
        out.bool(record.keyChanged)
        out.bool(record.indeterminateAttempt)
        out.int(record.attemptStatuses.count)
        for status in record.attemptStatuses { out.u16(status) }
    }

    private static func write(_ record: LedgerRecord, _ out: inout ByteWriter) {
        out.f64(record.arrival)
        out.f64(record.finished)
        out.u64(record.fingerprint)
        out.int(Int(record.benchSendID))
        out.u32(record.connection)
        out.u32(record.keyID)
        out.u32(record.attempt)
        out.u32(record.message)
        out.f64(record.retryAfter)
        out.u16(UInt16(bitPattern: record.rule))
        out.u16(record.status)
        out.u8(UInt8(Endpoint.allCases.firstIndex(of: record.endpoint) ?? 0))
        out.u8(record.action.rawValue)
        out.bool(record.effect)
        out.bool(record.clientGone)
        out.u8(record.defects.rawValue)
    }
}
