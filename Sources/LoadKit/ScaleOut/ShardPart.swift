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

// MARK: - Reading

extension ShardPart.Header {
    /// What is out of range in a header read back (nil: nothing), naming the field: `merge` counts,
    /// indexes and shifts clocks by these values.
    var problem: String? {
        if (try? Scenario.checkName(scenario, "scenario")) == nil {
            return "scenario: '\(scenario)' is not a scenario name"
        }
        guard (1...Shard.maxCount).contains(shardCount) else {
            return "shardCount: must be 1-\(Shard.maxCount), not \(shardCount)"
        }
        guard (0..<shardCount).contains(shardIndex) else {
            return "shardIndex: must be 0-\(shardCount - 1), not \(shardIndex)"
        }
        for (field, value, limit) in [
            ("wallStart", wallStart, ShardPart.maxWallStart), ("elapsed", elapsed, ShardPart.maxClock),
            ("end", end, ShardPart.maxClock),
        ] {
            guard value.isFinite, (0...limit).contains(value) else {
                return "\(field): must be a finite number of seconds from 0 to \(Int(limit)), not \(value)"
            }
        }
        if let rate, !LoadSettings.rates.contains(rate) {
            return
                "rate: must be \(LoadSettings.rates.lowerBound)-\(LoadSettings.rates.upperBound) sends/s, not \(rate)"
        }
        guard let runID else { return "runID: missing" }
        if !runID.isEmpty, let problem = RunID.problem(runID) { return "runID: \(problem)" }
        if sharedServer {
            guard let serverRunID else { return "serverRunID: missing (the shards shared a server)" }
            if let problem = RunID.problem(serverRunID) { return "serverRunID: \(problem)" }
        } else if serverRunID != nil {
            return "serverRunID: given, but the shards did not share a server"
        }
        return nil
    }
}

/// A shard file that cannot be read: names the file and what is wrong with it.
package struct ShardFileError: Error, CustomStringConvertible {
    var file: String
    var reason: String
    package var description: String { "\(file): \(reason)" }
}

extension ShardPart {
    package static func read(_ path: String) throws(ShardFileError) -> ShardPart {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ShardFileError(file: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        do {
            return try decode(Array(data))
        } catch {
            throw ShardFileError(file: path, reason: "not a shard's results: \(error)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> ShardPart {
        var input = ByteReader(bytes)
        guard Array(try input.bytes(magic.count)) == magic else {
            throw ByteReader.Malformed(offset: 0, reason: "it does not start with the \(format) mark")
        }
        // The checksum first: a damaged file is refused before anything in it is believed.
        let trailer = Array("END\n".utf8)
        guard bytes.count >= magic.count + 8 + trailer.count, Array(bytes.suffix(trailer.count)) == trailer else {
            throw ByteReader.Malformed(
                offset: bytes.count, reason: "the file does not end with the END mark (cut short?)")
        }
        let sumAt = bytes.count - trailer.count - 8
        let stored = bytes[sumAt..<(sumAt + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard stored == FNV1a.hash(bytes[..<sumAt]) else {
            throw ByteReader.Malformed(offset: sumAt, reason: "its checksum does not match its contents")
        }
        let length = Int(try input.u32())
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(try input.bytes(length)))
        } catch let error as ByteReader.Malformed {
            throw error
        } catch {
            throw ByteReader.Malformed(offset: magic.count + 4, reason: "its header is not readable JSON (\(error))")
        }
        guard header.format == format, header.version == version else {
            throw ByteReader.Malformed(
                offset: magic.count + 4,
                reason: "schema \(header.format) version \(header.version); this tool reads version \(version)")
        }
        if let problem = header.problem {
            throw ByteReader.Malformed(offset: magic.count + 4, reason: "its header's \(problem)")
        }
        var part = ShardPart(header: header)
        let recordCount = try input.count(itemSize: 50)
        part.records.reserveCapacity(recordCount)
        for _ in 0..<recordCount { part.records.append(try readRecord(&input)) }
        let backoffCount = try input.count(itemSize: 33)
        for _ in 0..<backoffCount {
            let sendID = try input.int()
            let afterAttempt = try input.int()
            let delay = try input.f64()
            let tag = try input.u8()
            let value = try input.f64()
            let cause: BackoffCause
            switch tag {
            case 0: cause = .jitter(cap: value)
            case 1: cause = .retryAfter(value)
            default: throw ByteReader.Malformed(offset: input.offset - 9, reason: "an unknown backoff cause \(tag)")
            }
            part.backoffs.append(
                History.Backoff(sendID: sendID, afterAttempt: afterAttempt, delay: delay, cause: cause))
        }
        for _ in 0..<(try input.count(itemSize: 12)) {
            let code = try input.string()
            part.attemptErrors[code] = try input.int()
        }
        part.attemptBuckets = try (0..<(try input.count(itemSize: 8))).map { _ in try input.int() }
        part.keys = try (0..<(try input.count(itemSize: 4))).map { _ in try input.string() }
        guard part.keys.first == "" else {
            throw ByteReader.Malformed(offset: input.offset, reason: "a key table without its empty first entry")
        }
        let ledgerCount = try input.count(itemSize: 54)
        part.ledger.reserveCapacity(ledgerCount)
        for _ in 0..<ledgerCount {
            let record = try readLedger(&input)
            guard Int(record.keyID) < part.keys.count else {
                throw ByteReader.Malformed(
                    offset: input.offset, reason: "a ledger record with key \(record.keyID) past the key table")
            }
            part.ledger.append(record)
        }
        if try input.bool() {
            let width = try input.f64()
            let busy = try (0..<(try input.count(itemSize: 8))).map { _ in try input.f64() }
            let waiting = try (0..<(try input.count(itemSize: 8))).map { _ in try input.f64() }
            let served = try (0..<(try input.count(itemSize: 8))).map { _ in try input.int() }
            let dead = try (0..<(try input.count(itemSize: 8))).map { _ in try input.int() }
            guard width.isFinite, width > 0 else {
                throw ByteReader.Malformed(offset: input.offset, reason: "a capacity series of bucket width \(width)")
            }
            part.capacity = CapacitySeries(width: width, busy: busy, waiting: waiting, served: served, dead: dead)
        }
        guard input.offset == sumAt else {
            throw ByteReader.Malformed(offset: input.offset, reason: "the file does not end where its contents do")
        }
        _ = try input.u64()
        guard Array(try input.bytes(4)) == Array("END\n".utf8), input.remaining == 0 else {
            throw ByteReader.Malformed(offset: input.offset, reason: "the file does not end where its contents do")
        }
        if let problem = part.problem() {
            throw ByteReader.Malformed(offset: magic.count + 4, reason: problem)
        }
        return part
    }

    private static func readRecord(_ input: inout ByteReader) throws -> History.Record {
        var record = History.Record(sendID: try input.int(), intended: try input.f64())
        record.started = try input.f64()
        record.ended = try input.f64()
        let tag = try input.u8()
        switch tag {
        case 0: record.outcome = .pending
        case 1: record.outcome = .ok(messageID: try input.string())
        case 2:
            let code = FrontmailError.Code(rawValue: try input.string())
            let status = try input.int()
            record.outcome = .failed(code: code, status: status < 0 ? nil : status)
        case 3: record.outcome = .dropped
        default: throw ByteReader.Malformed(offset: input.offset - 1, reason: "an unknown outcome \(tag)")
        }
        record.attempts = try input.int()
        record.firstKey = try input.optionalString()
        record.keyChanged = try input.bool()
        record.indeterminateAttempt = try input.bool()
        record.attemptStatuses = try (0..<(try input.count(itemSize: 2))).map { _ in try input.u16() }
        return record
    }

    private static func readLedger(_ input: inout ByteReader) throws -> LedgerRecord {
        let arrival = try input.f64()
        let finished = try input.f64()
        let fingerprint = try input.u64()
        let bench = try input.int()
        let connection = try input.u32()
        let keyID = try input.u32()
        let attempt = try input.u32()
        var record = LedgerRecord(
            arrival: arrival, connection: connection, endpoint: .send, keyID: keyID, attempt: attempt)
        record.finished = finished
        record.fingerprint = fingerprint
        record.benchSendID = Int64(bench)
        record.message = try input.u32()
        record.retryAfter = try input.f64()
        record.rule = Int16(bitPattern: try input.u16())
        record.status = try input.u16()
        let endpoint = Int(try input.u8())
        guard Endpoint.allCases.indices.contains(endpoint) else {
            throw ByteReader.Malformed(offset: input.offset - 1, reason: "an unknown endpoint \(endpoint)")
        }
        record.endpoint = Endpoint.allCases[endpoint]
        let action = try input.u8()
        guard let known = LedgerAction(rawValue: action) else {
            throw ByteReader.Malformed(offset: input.offset - 1, reason: "an unknown ledger action \(action)")
        }
        record.action = known
        record.effect = try input.bool()
        record.clientGone = try input.bool()
        record.defects = LedgerDefects(rawValue: try input.u8())
        return record
    }
}
