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

    func validate(path: String) throws(InputError) {
        try delay?.validate(path: path + ".delay")
        switch kind {
        case .respond:
            guard let status else { throw InputError(path: path + ".status", reason: "is required for respond") }
            // RFC 9110 §15: any three digits; 600-999 are answers no API should give (hostile plans).
            guard (100...999).contains(status) else {
                throw InputError(path: path + ".status", reason: "must be an HTTP status (100-999)")
            }
        case .delay, .commitThenDelay:
            guard delay != nil else {
                throw InputError(path: path + ".delay", reason: "is required for \(kind.rawValue)")
            }
        case .slowBody:
            guard let bytesPerSecond else {
                throw InputError(path: path + ".bytesPerSecond", reason: "is required for slowBody")
            }
            guard bytesPerSecond > 0, bytesPerSecond <= 1e9 else {
                throw InputError(path: path + ".bytesPerSecond", reason: "must be more than 0 and at most 1e9")
            }
        case .truncate:
            if let keepBytes, keepBytes < 0 || keepBytes > 1 << 30 {
                throw InputError(path: path + ".keepBytes", reason: "must be 0-1073741824")
            }
        case .hang, .reset, .close, .commitThenDrop, .refuse:
            break
        }
        try retryAfter?.validate(path: path + ".retryAfter")
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            let field = "\(path).headers.\(name)"
            guard HeaderText.isToken(name) else {
                throw InputError(path: field, reason: "is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            guard !HeaderText.setByServer.contains(name.lowercased()) else {
                throw InputError(path: field, reason: "is set by the server itself")
            }
            guard HeaderText.isFieldValue(value) else {
                throw InputError(path: field, reason: "must be printable text up to 8192 bytes (no CR, LF or controls)")
            }
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
            throw InputError(
                path: InputError.path(decoder.codingPath + [CodingKeys.type]),
                reason: "'\(name)' is not an action (\(kinds))")
        }
        self.kind = kind
        try decoder.rejectUnknownKeys(Self.fieldsByKind[kind, default: []].union(["type"]))
        delay = try container.decodeIfPresent(Distribution.self, forKey: .delay)
        status = try container.integer(Int.self, .status)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        retryAfter = try container.decodeIfPresent(RetryAfterSpec.self, forKey: .retryAfter)
        body = try container.decodeIfPresent(BodySpec.self, forKey: .body)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        bytesPerSecond = try container.decodeIfPresent(Double.self, forKey: .bytesPerSecond)
        keepBytes = try container.integer(Int.self, .keepBytes)
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
