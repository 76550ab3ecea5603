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
        let container = try decoder.strictContainer(["httpDateIn"])
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

/// A replacement body: `"html"`, `"empty"`, `"emptyObject"`, `"invalidJSON"`, `"noMessageID"`, one
/// of the hostile bodies no API should send (`"deepNesting"`, `"hugeNumber"`, `"invalidUTF8"`,
/// `"megabytes"`), or `{"raw": "…"}`.
public enum BodySpec: Sendable, Hashable {
    case html
    case empty
    case emptyObject
    case invalidJSON
    case noMessageID
    /// 100,000 open brackets: a reader that recurses per level runs out of stack.
    case deepNesting
    /// A `message_id` that is a number of 100,000 digits.
    case hugeNumber
    /// The API's answer, with bytes in its strings that are not UTF-8 (RFC 8259 §8.1 requires it).
    case invalidUTF8
    /// 4 MiB of text that is not JSON.
    case megabytes
    case raw(String)

    /// The names of the bodies no API should send, in the order explore draws them.
    public static let hostileNames = ["deepNesting", "hugeNumber", "invalidUTF8", "megabytes"]

    private static let named: [String: BodySpec] = [
        "html": .html, "empty": .empty, "emptyObject": .emptyObject, "invalidJSON": .invalidJSON,
        "noMessageID": .noMessageID, "deepNesting": .deepNesting, "hugeNumber": .hugeNumber,
        "invalidUTF8": .invalidUTF8, "megabytes": .megabytes,
    ]

    /// Whether no API should ever answer with this body (the hostile ones).
    public var isHostile: Bool {
        switch self {
        case .deepNesting, .hugeNumber, .invalidUTF8, .megabytes: return true
        default: return false
        }
    }

    private static let deepNestingBytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
    private static let hugeNumberBytes =
        Array(#"{"message_id":"#.utf8) + [UInt8](repeating: UInt8(ascii: "7"), count: 100_000)
        + Array(#","status":"queued","status_token":"stk_x"}"#.utf8)
    private static let invalidUTF8Bytes =
        Array(#"{"message_id":"msg_"#.utf8) + [0xFF, 0xFE, 0xC3]
        + Array(#"","status":"queued","status_token":"stk_"#.utf8)
        + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)
    private static let megabytesCount = 4 << 20
    private static let megabytesBytes = [UInt8](repeating: UInt8(ascii: "x"), count: megabytesCount)
    private static let megabytesData = Data(megabytesBytes)

    /// A body as `Data` for the in-process transport. The 4 MiB hostile body is made once and
    /// shared by every answer that carries it: a copy per answer made a long search's memory climb
    /// (the allocator kept the freed 4 MiB blocks; docs/explore.md, "Memory on long runs"). Any
    /// other body, and a copy of that one that was changed, is copied.
    public static func data(of body: [UInt8]) -> Data {
        // The size is compared first, with a constant: reading `megabytesBytes` builds its 4 MiB, a
        // millisecond of page faults that the first answer of every process would otherwise pay.
        guard body.count == megabytesCount else { return Data(body) }
        let address = { (bytes: [UInt8]) in bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        return address(body) == address(megabytesBytes) ? megabytesData : Data(body)
    }

    public var bytes: [UInt8] {
        switch self {
        case .html: return Array("<html><head><title>Gateway Timeout</title></head><body>upstream</body></html>".utf8)
        case .empty: return []
        case .emptyObject: return Array("{}".utf8)
        case .invalidJSON: return Array(#"{"message_id": "msg_"#.utf8)
        case .noMessageID: return Array(#"{"status":"queued","status_token":"stk_none"}"#.utf8)
        case .deepNesting: return Self.deepNestingBytes
        case .hugeNumber: return Self.hugeNumberBytes
        case .invalidUTF8: return Self.invalidUTF8Bytes
        case .megabytes: return Self.megabytesBytes
        case .raw(let text): return Array(text.utf8)
        }
    }

    /// The name a plan spells it with (nil for `raw`).
    public var name: String? {
        Self.named.first { $0.value == self }?.key
    }

    public var contentType: String { self == .html ? "text/html" : "application/json" }
}

extension BodySpec: Codable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let body = Self.named[name] else {
                throw InputError(
                    path: InputError.path(decoder.codingPath),
                    reason:
                        "'\(name)' is not a body (html, empty, emptyObject, invalidJSON, noMessageID, "
                        + Self.hostileNames.joined(separator: ", ") + " or {\"raw\": …})")
            }
            self = body
            return
        }
        let container = try decoder.strictContainer(["raw"])
        self = .raw(try container.decode(String.self, forKey: AnyKey("raw")))
    }

    public func encode(to encoder: any Encoder) throws {
        if case .raw(let text) = self {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(text, forKey: AnyKey("raw"))
            return
        }
        var single = encoder.singleValueContainer()
        try single.encode(name ?? "")
    }
}

/// What a plan may put into a response header.
enum HeaderText {
    /// A century: the furthest a Retry-After may point (HTTP dates stay four-digit years).
    static let maxSeconds = 3_155_760_000.0
    /// Framing headers the server writes itself.
    static let setByServer: Set<String> = ["content-length", "connection", "transfer-encoding"]

    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 256 && name.utf8.allSatisfy(isTokenByte)
    }

    /// A byte of an RFC 9110 token (a header name, a method): letters, digits and `!#$%&'*+-.^_`|~`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Visible characters, spaces and tabs only: no CR or LF can split the response.
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.count <= 8192 && value.utf8.allSatisfy { ($0 >= 32 && $0 != 127) || $0 == 9 }
    }
}
