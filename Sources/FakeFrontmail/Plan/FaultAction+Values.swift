import Foundation

/// A Retry-After header: a number of seconds (`2`, `1.5`, `-3`), a string sent as it is
/// (`"soon"`, an HTTP date), or `{"httpDateIn": "10s"}` (an HTTP date that far from now; negative
/// for the past).
public enum RetryAfterSpec: Sendable, Hashable {
    case seconds(Double)
    case raw(String)
    case httpDateIn(TimeSpan)

    /// The header value at wall-clock time `now`.
    public func headerValue(now: Date) -> String {
        switch self {
        case .seconds(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .raw(let text):
            return text
        case .httpDateIn(let span):
            return HTTPDate.string(from: now.addingTimeInterval(span.seconds))
        }
    }

    /// Every value reaches the wire: numbers stay within a century, text is a valid field value.
    func validate(path: String) throws(InputError) {
        switch self {
        case .seconds(let value):
            guard value.isFinite, abs(value) <= HeaderText.maxSeconds else {
                throw InputError(path: path, reason: "must be a number of seconds within ±3155760000 (a century)")
            }
        case .raw(let text):
            guard HeaderText.isFieldValue(text) else {
                throw InputError(path: path, reason: "must be printable text up to 8192 bytes (no CR, LF or controls)")
            }
        case .httpDateIn(let span):
            guard abs(span.seconds) <= HeaderText.maxSeconds else {
                throw InputError(path: path + ".httpDateIn", reason: "must be within ±3155760000 s (a century)")
            }
        }
    }

    func scaled(by factor: Double) -> RetryAfterSpec {
        switch self {
        case .seconds(let value): return .seconds(value * factor)
        case .raw: return self
        case .httpDateIn(let span): return .httpDateIn(span.scaled(by: factor))
        }
    }
}

extension RetryAfterSpec: Codable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let number = try? single.decode(Double.self) {
                self = .seconds(number)
                return
            }
            if let text = try? single.decode(String.self) {
                self = .raw(text)
                return
            }
        }
        try decoder.rejectUnknownKeys(["httpDateIn"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        self = .httpDateIn(try container.decode(TimeSpan.self, forKey: AnyKey("httpDateIn")))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .seconds(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .raw(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .httpDateIn(let span):
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(span, forKey: AnyKey("httpDateIn"))
        }
    }
}

/// A replacement body: `"html"`, `"empty"`, `"emptyObject"`, `"invalidJSON"`, `"noMessageID"`, or
/// `{"raw": "…"}`.
public enum BodySpec: Sendable, Hashable {
    case html
    case empty
    case emptyObject
    case invalidJSON
    case noMessageID
    case raw(String)

    public var bytes: [UInt8] {
        switch self {
        case .html: return Array("<html><head><title>Gateway Timeout</title></head><body>upstream</body></html>".utf8)
        case .empty: return []
        case .emptyObject: return Array("{}".utf8)
        case .invalidJSON: return Array(#"{"message_id": "msg_"#.utf8)
        case .noMessageID: return Array(#"{"status":"queued","status_token":"stk_none"}"#.utf8)
        case .raw(let text): return Array(text.utf8)
        }
    }

    public var contentType: String { self == .html ? "text/html" : "application/json" }
}

extension BodySpec: Codable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            switch name {
            case "html": self = .html
            case "empty": self = .empty
            case "emptyObject": self = .emptyObject
            case "invalidJSON": self = .invalidJSON
            case "noMessageID": self = .noMessageID
            default:
                throw InputError(
                    path: InputError.path(decoder.codingPath),
                    reason:
                        "'\(name)' is not a body (html, empty, emptyObject, invalidJSON, noMessageID or {\"raw\": …})")
            }
            return
        }
        try decoder.rejectUnknownKeys(["raw"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        self = .raw(try container.decode(String.self, forKey: AnyKey("raw")))
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .html: try single.encode("html")
        case .empty: try single.encode("empty")
        case .emptyObject: try single.encode("emptyObject")
        case .invalidJSON: try single.encode("invalidJSON")
        case .noMessageID: try single.encode("noMessageID")
        case .raw(let text):
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(text, forKey: AnyKey("raw"))
        }
    }
}

/// N workers with a service time; above capacity requests queue (latency grows) or are shed with
/// 503 + Retry-After. A `schedule` changes the number of workers over time (a capacity drop), and
/// `abandoned` says whether queued work whose client has gone is still served.
public struct CapacityModel: Sendable, Hashable, Codable {
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable, InputChoice { case queue, shed }

    /// What the server does with a queued request whose client has gone before its turn.
    public enum Abandoned: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
        /// It still takes its worker for its service time (dead work: the sustaining effect of
        /// most metastable failures).
        case serve
        /// It is dropped unprocessed, and the worker time it had reserved is given back.
        case drop
    }

    public var workers: Int
    public var serviceTime: Distribution
    public var mode: Mode
    /// With `queue`: requests waiting beyond this many are shed too.
    public var maxQueue: Int?
    public var shedRetryAfter: RetryAfterSpec?
    /// Windows with another number of workers (time since the server started).
    public var schedule: [CapacityChange]
    public var abandoned: Abandoned

    public init(
        workers: Int, serviceTime: Distribution, mode: Mode = .queue, maxQueue: Int? = nil,
        shedRetryAfter: RetryAfterSpec? = nil, schedule: [CapacityChange] = [], abandoned: Abandoned = .serve
    ) {
        self.workers = workers
        self.serviceTime = serviceTime
        self.mode = mode
        self.maxQueue = maxQueue
        self.shedRetryAfter = shedRetryAfter
        self.schedule = schedule
        self.abandoned = abandoned
    }

    private enum CodingKeys: String, CodingKey {
        case workers, serviceTime, mode, maxQueue, shedRetryAfter, schedule, abandoned
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys([
            "workers", "serviceTime", "mode", "maxQueue", "shedRetryAfter", "schedule", "abandoned",
        ])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        workers = try container.requiredInteger(Int.self, .workers)
        serviceTime = try container.decode(Distribution.self, forKey: .serviceTime)
        mode = try container.decodeIfPresent(Mode.self, forKey: .mode) ?? .queue
        maxQueue = try container.integer(Int.self, .maxQueue)
        shedRetryAfter = try container.decodeIfPresent(RetryAfterSpec.self, forKey: .shedRetryAfter)
        schedule = try container.decodeIfPresent([CapacityChange].self, forKey: .schedule) ?? []
        abandoned = try container.decodeIfPresent(Abandoned.self, forKey: .abandoned) ?? .serve
    }

    func validate(path: String) throws(InputError) {
        try InputError.check(workers, in: 1...100_000, path + ".workers")
        if let maxQueue { try InputError.check(maxQueue, in: 0...10_000_000, path + ".maxQueue") }
        try serviceTime.validate(path: path + ".serviceTime")
        try shedRetryAfter?.validate(path: path + ".shedRetryAfter")
        try InputError.check(schedule.count, in: 0...1000, path + ".schedule", unit: " windows")
        for (index, change) in schedule.enumerated() {
            let item = path + ".schedule[\(index)]"
            try change.validate(path: item)
            if index > 0, change.from < schedule[index - 1].to {
                throw InputError(
                    path: item + ".from",
                    reason:
                        "windows must be in order and not overlap (the one before ends at \(schedule[index - 1].to))")
            }
        }
    }

    func scaled(by factor: Double) -> CapacityModel {
        var copy = self
        copy.serviceTime = serviceTime.scaled(by: factor)
        copy.shedRetryAfter = shedRetryAfter?.scaled(by: factor)
        copy.schedule = schedule.map { $0.scaled(by: factor) }
        return copy
    }

    /// The number of workers at `elapsed` seconds since the server started.
    public func workers(at elapsed: Double) -> Int {
        for change in schedule where elapsed >= change.from.seconds && elapsed < change.to.seconds {
            return change.workers(base: workers)
        }
        return workers
    }
}

/// `{"from": "20s", "to": "30s", "workers": 2}` or `{"from": …, "to": …, "factor": 0.2}`: from
/// (inclusive) to (exclusive) the server has that many workers (a factor of the base, rounded down).
/// Work in progress when capacity drops is finished; waiting work waits for a worker that exists.
public struct CapacityChange: Sendable, Hashable, Codable {
    public var from: TimeSpan
    public var to: TimeSpan
    public var workers: Int?
    public var factor: Double?

    public init(from: TimeSpan, to: TimeSpan, workers: Int? = nil, factor: Double? = nil) {
        self.from = from
        self.to = to
        self.workers = workers
        self.factor = factor
    }

    private enum CodingKeys: String, CodingKey { case from, to, workers, factor }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["from", "to", "workers", "factor"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decode(TimeSpan.self, forKey: .from)
        to = try container.decode(TimeSpan.self, forKey: .to)
        workers = try container.integer(Int.self, .workers)
        factor = try container.decodeIfPresent(Double.self, forKey: .factor)
    }

    func validate(path: String) throws(InputError) {
        try InputError.check(from, path + ".from")
        try InputError.check(to, path + ".to", positive: true)
        if to <= from { throw InputError(path: path + ".to", reason: "must be after from (\(from))") }
        switch (workers, factor) {
        case (let workers?, nil):
            try InputError.check(workers, in: 0...100_000, path + ".workers")
        case (nil, let factor?):
            guard factor.isFinite, (0...100).contains(factor) else {
                throw InputError(path: path + ".factor", reason: "must be 0-100 (a multiple of the base workers)")
            }
        default:
            throw InputError(path: path, reason: "give either workers or factor (exactly one)")
        }
    }

    /// The workers in the window, for a model of `base` workers.
    public func workers(base: Int) -> Int {
        if let workers { return workers }
        return min(100_000, Int((Double(base) * (factor ?? 1)).rounded(.down)))
    }

    func scaled(by factor: Double) -> CapacityChange {
        CapacityChange(from: from.scaled(by: factor), to: to.scaled(by: factor), workers: workers, factor: self.factor)
    }
}

/// What a plan may put into a response header.
enum HeaderText {
    /// A century: the furthest a Retry-After may point (HTTP dates stay four-digit years).
    static let maxSeconds = 3_155_760_000.0
    /// Framing headers the server writes itself.
    static let setByServer: Set<String> = ["content-length", "connection", "transfer-encoding"]

    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 256
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// Visible characters, spaces and tabs only: no CR or LF can split the response.
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.count <= 8192 && value.utf8.allSatisfy { ($0 >= 32 && $0 != 127) || $0 == 9 }
    }
}
