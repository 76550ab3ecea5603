import Foundation
import Synchronization

/// What the server did with one request: served it, carried out a plan rule's action (derived from
/// `FaultAction.Kind`, so a new fault action is a new ledger action without a line here), shed it
/// by capacity, or dropped it unprocessed.
public enum LedgerAction: Sendable, Hashable {
    /// Served normally (no rule matched).
    case served
    /// A rule's action. A refused connection (`refuse`) is recorded as `close`: the client sees a
    /// connection that ends without an answer either way.
    case fault(FaultAction.Kind)
    /// Refused by the capacity model (503 + Retry-After).
    case shed
    /// Queued, and dropped unprocessed because its client had gone (`abandoned: drop`).
    case dropped

    public init(_ kind: FaultAction.Kind) {
        self = .fault(kind == .refuse ? .close : kind)
    }

    /// Every action a ledger can hold, in the order of their codes.
    public static let allCases: [LedgerAction] =
        [.served] + FaultAction.Kind.allCases.filter { $0 != .refuse }.map(LedgerAction.fault) + [.shed, .dropped]

    /// The name in `ledger.csv`: `served`, the fault action's name, `shed`, `dropped`.
    public var name: String {
        switch self {
        case .served: return "served"
        case .fault(let kind): return kind.rawValue
        case .shed: return "shed"
        case .dropped: return "dropped"
        }
    }

    /// The code of the `.fmshard` format: 0 served, the fault actions from 1 in their declaration
    /// order, 10 shed, 11 dropped; a fault action declared after the ninth takes a code from 12 on.
    public var rawValue: UInt8 {
        switch self {
        case .served: return 0
        case .shed: return 10
        case .dropped: return 11
        case .fault(let kind):
            let index = UInt8(Self.faultKinds.firstIndex(of: kind == .refuse ? .close : kind) ?? 0)
            return index < 9 ? index + 1 : index + 3
        }
    }

    public init?(rawValue: UInt8) {
        guard let action = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = action
    }

    private static let faultKinds = FaultAction.Kind.allCases.filter { $0 != .refuse }
}

/// Client defects the server noticed (a correct SDK shows none).
public struct LedgerDefects: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A status token in the request's URL, in any query parameter or path segment (it belongs in
    /// the `X-Frontmail-Status-Token` header: URLs end up in logs and caches).
    public static let queryToken = LedgerDefects(rawValue: 1)
    /// An `Authorization` header (a public-key client never sends one).
    public static let authorizationHeader = LedgerDefects(rawValue: 2)
    /// No `X-Frontmail-Client` header.
    public static let missingClientHeader = LedgerDefects(rawValue: 4)
    /// An `sk_` key in the public-key header.
    public static let privateKey = LedgerDefects(rawValue: 8)

    public var names: [String] {
        var names: [String] = []
        if contains(.queryToken) { names.append("query_token") }
        if contains(.authorizationHeader) { names.append("authorization_header") }
        if contains(.missingClientHeader) { names.append("missing_client_header") }
        if contains(.privateKey) { names.append("private_key") }
        return names
    }
}

/// One request as the server saw it. Compact (about 64 bytes) so millions fit in memory.
public struct LedgerRecord: Sendable, Hashable {
    // Laid out widest first so the record packs into 64 bytes.
    /// Seconds since the server started (monotonic).
    public var arrival: Double
    /// When the response was complete or the connection ended; NaN while open.
    public var finished: Double = .nan
    /// The wait the answer's Retry-After asked for, in seconds from when the answer left (an HTTP
    /// date as the seconds to its instant; never negative), as the plan meant it: the fake's own
    /// account, never the SDK's reading of the header. NaN = none, or text that asks for nothing.
    public var retryAfter: Double = .nan
    /// FNV-1a of the body bytes.
    public var fingerprint: UInt64 = 0
    /// `template_params.bench_send_id`, or -1.
    public var benchSendID: Int64 = -1
    public var connection: UInt32
    /// Index into the ledger's key table; 0 = no Idempotency-Key.
    public var keyID: UInt32
    /// The n-th time the server saw this key (1-based; 1 without a key).
    public var attempt: UInt32
    /// The message id in the answer (committed now or replayed); 0 = none.
    public var message: UInt32 = 0
    /// The fault rule that matched, or -1.
    public var rule: Int16 = -1
    /// The status sent; 0 when no response was sent.
    public var status: UInt16 = 0
    public var endpoint: Endpoint
    public var action: LedgerAction = .served
    /// `effect` and `clientGone`, one bit each (the record stays 64 bytes).
    private var flags: UInt8 = 0
    public var defects: LedgerDefects = []

    /// Whether this request committed a new message (an effect).
    public var effect: Bool {
        get { flags & 1 != 0 }
        set { flags = newValue ? flags | 1 : flags & ~1 }
    }

    /// The client went away before the answer was sent.
    public var clientGone: Bool {
        get { flags & 2 != 0 }
        set { flags = newValue ? flags | 2 : flags & ~2 }
    }

    public init(arrival: Double, connection: UInt32, endpoint: Endpoint, keyID: UInt32, attempt: UInt32) {
        self.arrival = arrival
        self.connection = connection
        self.endpoint = endpoint
        self.keyID = keyID
        self.attempt = attempt
    }
}

/// The server's truth: one record per request, queryable in process and exportable as CSV.
public final class AttemptLedger: Sendable {
    private struct State {
        var records: [LedgerRecord] = []
        /// Key k has keyID k + 1 (0 is no key).
        var keys = KeyIndex(capacity: 1 << 16)
        var attempts: [UInt32] = [0]

        /// Every key indexed by keyID, with the empty placeholder at 0.
        var keyTable: [String] { [""] + keys.keys }
    }

    private let state: Mutex<State>

    public init() {
        var initial = State()
        initial.records.reserveCapacity(1 << 16)
        initial.attempts.reserveCapacity(1 << 16)
        state = Mutex(initial)
    }

    /// Appends a record for a request that just arrived; returns its index and the attempt number.
    /// `keyFingerprint` is `Fingerprint.of(key)` when the caller has it already.
    func append(
        _ make: (inout LedgerRecord) -> Void, key: String?, keyFingerprint: UInt64? = nil, arrival: Double,
        connection: UInt32, endpoint: Endpoint
    )
        -> (index: Int, attempt: UInt32)
    {
        state.withLock { state in
            var keyID: UInt32 = 0
            if let key {
                let (number, inserted) = state.keys.insert(key, fingerprint: keyFingerprint ?? Fingerprint.of(key))
                keyID = UInt32(number + 1)
                if inserted { state.attempts.append(0) }
                state.attempts[Int(keyID)] += 1
            }
            let attempt = keyID == 0 ? 1 : state.attempts[Int(keyID)]
            var record = LedgerRecord(
                arrival: arrival, connection: connection, endpoint: endpoint, keyID: keyID, attempt: attempt)
            make(&record)
            state.records.append(record)
            return (state.records.count - 1, attempt)
        }
    }

    /// A ledger made of records kept elsewhere (a shard's, read back to be merged): `keys` is the
    /// key table the records' `keyID`s index, `keys[0]` the empty placeholder.
    public init(records: [LedgerRecord], keys: [String]) {
        precondition(keys.first == "", "keys[0] is the placeholder for no key")
        var state = State()
        state.records = records
        state.keys = KeyIndex(keys.dropFirst())
        state.attempts = Array(repeating: 0, count: keys.count)
        for record in records where record.keyID != 0 && Int(record.keyID) < keys.count {
            state.attempts[Int(record.keyID)] = max(state.attempts[Int(record.keyID)], record.attempt)
        }
        self.state = Mutex(state)
    }

    func update(_ index: Int, _ change: (inout LedgerRecord) -> Void) {
        state.withLock { change(&$0.records[index]) }
    }

    public var count: Int { state.withLock { $0.records.count } }

    /// A copy of every record.
    public var records: [LedgerRecord] { state.withLock { $0.records } }

    public func record(_ index: Int) -> LedgerRecord { state.withLock { $0.records[index] } }

    /// The idempotency key of a record's `keyID` (nil for 0).
    public func key(_ keyID: UInt32) -> String? {
        keyID == 0 ? nil : state.withLock { $0.keys.keys[Int(keyID) - 1] }
    }

    /// Every key, indexed by `keyID` (index 0 is the empty placeholder).
    public var keyTable: [String] { state.withLock { $0.keyTable } }

    public static let csvHeader =
        "index,arrival_s,finished_s,connection,endpoint,idempotency_key,bench_send_id,fingerprint,attempt,rule,action,status,retry_after_s,message_id,effect,client_gone,defects"

    /// Writes the ledger as CSV (documented in docs/csv.md).
    public func writeCSV(to url: URL) throws {
        let (records, keys) = state.withLock { ($0.records, $0.keyTable) }
        try OutputFile.write(to: url) { handle in
            var chunk = Self.csvHeader + "\n"
            for (index, record) in records.enumerated() {
                let finished = record.finished.isNaN ? "" : Self.fixed6(record.finished)
                let message = record.message == 0 ? "" : MessageID.string(record.message)
                let bench = record.benchSendID < 0 ? "" : String(record.benchSendID)
                let fields = [
                    String(index), Self.fixed6(record.arrival), finished, String(record.connection),
                    record.endpoint.rawValue, keys[Int(record.keyID)], bench, String(record.fingerprint, radix: 16),
                    String(record.attempt), String(record.rule), record.action.name, String(record.status),
                    record.retryAfter.isNaN ? "" : String(record.retryAfter), message,
                    record.effect ? "1" : "0", record.clientGone ? "1" : "0",
                    record.defects.names.joined(separator: "|"),
                ]
                chunk += fields.map(Self.csvField).joined(separator: ",") + "\n"
                if chunk.utf8.count > 1 << 20 {
                    try handle.write(contentsOf: Data(chunk.utf8))
                    chunk = ""
                }
            }
            try handle.write(contentsOf: Data(chunk.utf8))
        }
    }

    /// `value` with six decimals, as `String(format: "%.6f")` writes it (which costs ten times
    /// more on Linux); a value whose micro-units fall exactly on a half may round the other way.
    public static func fixed6(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return String(format: "%.6f", value) }
        let micros = Int64((abs(value) * 1e6).rounded())
        let fraction = String(micros % 1_000_000)
        return (value.sign == .minus ? "-" : "") + String(micros / 1_000_000) + "."
            + String(repeating: "0", count: 6 - fraction.utf8.count) + fraction
    }

    /// Quotes a field when it holds a comma, quote or newline (RFC 4180).
    public static func csvField(_ text: String) -> String {
        // Scanned as bytes: walking Characters cost more than the rest of a ledger row.
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
