import Foundation

/// What happens to a request a rule matched.
public struct FaultAction: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Answer with `status` (and `code`, `message`, `retryAfter`, `body`, `headers`) without
        /// processing; a 2xx status without `body` processes normally and only replaces the status.
        case respond
        /// Process normally after `delay` (time before the headers, while the key is in progress).
        case delay
        /// Process normally, send the headers, then trickle the body at `bytesPerSecond`.
        case slowBody
        /// Never answer; wait until the client goes away.
        case hang
        /// Reset the connection (RST) without answering.
        case reset
        /// Close the connection (FIN) without answering.
        case close
        /// Process normally, send the headers and `keepBytes` of the body, then close.
        case truncate
        /// Process (the send is accepted and stored), then close without answering.
        case commitThenDrop
        /// Process at once, answer after `delay` (longer than the client's timeout, typically).
        case commitThenDelay
        /// Close the listener during the rule's time window: connections are refused.
        case refuse
    }

    public var kind: Kind
    public var delay: Distribution?
    public var status: Int?
    public var code: String?
    public var message: String?
    public var retryAfter: RetryAfterSpec?
    public var body: BodySpec?
    public var headers: [String: String]?
    public var bytesPerSecond: Double?
    public var keepBytes: Int?

    public init(
        _ kind: Kind, delay: Distribution? = nil, status: Int? = nil, code: String? = nil, message: String? = nil,
        retryAfter: RetryAfterSpec? = nil, body: BodySpec? = nil, headers: [String: String]? = nil,
        bytesPerSecond: Double? = nil, keepBytes: Int? = nil
    ) {
        self.kind = kind
        self.delay = delay
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.body = body
        self.headers = headers
        self.bytesPerSecond = bytesPerSecond
        self.keepBytes = keepBytes
    }

    public static func respond(
        _ status: Int, code: String? = nil, retryAfter: RetryAfterSpec? = nil, body: BodySpec? = nil,
        delay: Distribution? = nil
    ) -> FaultAction {
        FaultAction(.respond, delay: delay, status: status, code: code, retryAfter: retryAfter, body: body)
    }

    /// Whether the request is processed by the API emulator (and may commit a send).
    public var processes: Bool {
        switch kind {
        case .delay, .slowBody, .truncate, .commitThenDrop, .commitThenDelay: return true
        case .respond: return (status.map { (200..<300).contains($0) } ?? false) && body == nil
        case .hang, .reset, .close, .refuse: return false
        }
    }

    static let fieldsByKind: [Kind: Set<String>] = [
        .respond: ["status", "code", "message", "retryAfter", "body", "headers", "delay"],
        .delay: ["delay"],
        .slowBody: ["bytesPerSecond", "delay"],
        .hang: [],
        .reset: ["delay"],
        .close: ["delay"],
        .truncate: ["keepBytes", "delay"],
        .commitThenDrop: ["delay"],
        .commitThenDelay: ["delay"],
        .refuse: [],
    ]

    func validate(path: String) throws(PlanError) {
        try delay?.validate(path: path + ".delay")
        switch kind {
        case .respond:
            guard let status else { throw PlanError(path: path + ".status", reason: "is required for respond") }
            guard (100...599).contains(status) else {
                throw PlanError(path: path + ".status", reason: "must be an HTTP status (100-599)")
            }
        case .delay, .commitThenDelay:
            guard delay != nil else {
                throw PlanError(path: path + ".delay", reason: "is required for \(kind.rawValue)")
            }
        case .slowBody:
            guard let bytesPerSecond else {
                throw PlanError(path: path + ".bytesPerSecond", reason: "is required for slowBody")
            }
            guard bytesPerSecond > 0, bytesPerSecond.isFinite else {
                throw PlanError(path: path + ".bytesPerSecond", reason: "must be positive")
            }
        case .truncate:
            if let keepBytes, keepBytes < 0 {
                throw PlanError(path: path + ".keepBytes", reason: "must not be negative")
            }
        case .hang, .reset, .close, .commitThenDrop, .refuse:
            break
        }
        if case .httpDateIn? = retryAfter {
        } else if case .seconds(let value)? = retryAfter, !value.isFinite {
            throw PlanError(path: path + ".retryAfter", reason: "must be finite")
        }
    }

    func scaled(by factor: Double) -> FaultAction {
        var copy = self
        copy.delay = delay?.scaled(by: factor)
        copy.retryAfter = retryAfter?.scaled(by: factor)
        copy.bytesPerSecond = bytesPerSecond.map { $0 / factor }
        return copy
    }
}

extension FaultAction: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, delay, status, code, message, retryAfter, body, headers, bytesPerSecond, keepBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: name) else {
            let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw PlanError(
                path: PlanError.path(decoder.codingPath + [CodingKeys.type]),
                reason: "'\(name)' is not an action (\(kinds))")
        }
        self.kind = kind
        try decoder.rejectUnknownKeys(Self.fieldsByKind[kind, default: []].union(["type"]))
        delay = try container.decodeIfPresent(Distribution.self, forKey: .delay)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        retryAfter = try container.decodeIfPresent(RetryAfterSpec.self, forKey: .retryAfter)
        body = try container.decodeIfPresent(BodySpec.self, forKey: .body)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        bytesPerSecond = try container.decodeIfPresent(Double.self, forKey: .bytesPerSecond)
        keepBytes = try container.decodeIfPresent(Int.self, forKey: .keepBytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .type)
        try container.encodeIfPresent(delay, forKey: .delay)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encodeIfPresent(headers, forKey: .headers)
        try container.encodeIfPresent(bytesPerSecond, forKey: .bytesPerSecond)
        try container.encodeIfPresent(keepBytes, forKey: .keepBytes)
    }
}

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
                throw PlanError(
                    path: PlanError.path(decoder.codingPath),
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
/// 503 + Retry-After.
public struct CapacityModel: Sendable, Hashable, Codable {
    public enum Mode: String, Sendable, Hashable, Codable { case queue, shed }

    public var workers: Int
    public var serviceTime: Distribution
    public var mode: Mode
    /// With `queue`: requests waiting beyond this many are shed too.
    public var maxQueue: Int?
    public var shedRetryAfter: RetryAfterSpec?

    public init(
        workers: Int, serviceTime: Distribution, mode: Mode = .queue, maxQueue: Int? = nil,
        shedRetryAfter: RetryAfterSpec? = nil
    ) {
        self.workers = workers
        self.serviceTime = serviceTime
        self.mode = mode
        self.maxQueue = maxQueue
        self.shedRetryAfter = shedRetryAfter
    }

    private enum CodingKeys: String, CodingKey { case workers, serviceTime, mode, maxQueue, shedRetryAfter }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["workers", "serviceTime", "mode", "maxQueue", "shedRetryAfter"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        workers = try container.decode(Int.self, forKey: .workers)
        serviceTime = try container.decode(Distribution.self, forKey: .serviceTime)
        mode = try container.decodeIfPresent(Mode.self, forKey: .mode) ?? .queue
        maxQueue = try container.decodeIfPresent(Int.self, forKey: .maxQueue)
        shedRetryAfter = try container.decodeIfPresent(RetryAfterSpec.self, forKey: .shedRetryAfter)
    }

    func validate(path: String) throws(PlanError) {
        if workers < 1 { throw PlanError(path: path + ".workers", reason: "must be 1 or more") }
        if let maxQueue, maxQueue < 0 { throw PlanError(path: path + ".maxQueue", reason: "must not be negative") }
        try serviceTime.validate(path: path + ".serviceTime")
    }

    func scaled(by factor: Double) -> CapacityModel {
        var copy = self
        copy.serviceTime = serviceTime.scaled(by: factor)
        copy.shedRetryAfter = shedRetryAfter?.scaled(by: factor)
        return copy
    }
}
