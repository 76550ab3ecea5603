import FakeFrontmail
import Foundation
import Frontmail

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
        let sumAt = try checksummedEnd(bytes)
        var part = ShardPart(header: try readHeader(&input))
        let recordCount = try input.count(itemSize: 50)
        part.records.reserveCapacity(recordCount)
        for _ in 0..<recordCount { part.records.append(try readRecord(&input)) }
        for _ in 0..<(try input.count(itemSize: 33)) { part.backoffs.append(try readBackoff(&input)) }
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
        if try input.bool() { part.capacity = try readCapacity(&input) }
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

    /// Checks the file's end mark and checksum before anything in it is believed (a damaged file is
    /// refused first); returns where the checksum starts, which is where the contents must end.
    private static func checksummedEnd(_ bytes: [UInt8]) throws -> Int {
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
        return sumAt
    }

    /// The JSON header after the mark: its length, then the header, whose format, version and
    /// fields are checked.
    private static func readHeader(_ input: inout ByteReader) throws -> Header {
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
        return header
    }

    private static func readBackoff(_ input: inout ByteReader) throws -> History.Backoff {
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
        return History.Backoff(sendID: sendID, afterAttempt: afterAttempt, delay: delay, cause: cause)
    }

    private static func readCapacity(_ input: inout ByteReader) throws -> CapacitySeries {
        let width = try input.f64()
        let busy = try (0..<(try input.count(itemSize: 8))).map { _ in try input.f64() }
        let waiting = try (0..<(try input.count(itemSize: 8))).map { _ in try input.f64() }
        let served = try (0..<(try input.count(itemSize: 8))).map { _ in try input.int() }
        let dead = try (0..<(try input.count(itemSize: 8))).map { _ in try input.int() }
        guard width.isFinite, width > 0 else {
            throw ByteReader.Malformed(offset: input.offset, reason: "a capacity series of bucket width \(width)")
        }
        return CapacitySeries(width: width, busy: busy, waiting: waiting, served: served, dead: dead)
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
