import Foundation
import Frontmail
import Synchronization

/// The Frontmail API's semantics (wire contract §2-§8), transport-agnostic and thread-safe.
///
/// Sends go through two phases so that a request can be "in progress" while a fault delays it:
/// `beginSend` authenticates, parses and claims the idempotency key; `finishSend` validates the
/// template and commits the message (once per key).
public final class Emulator: Sendable {
    public let config: EmulatorConfig
    let seed: UInt64
    let templates: [String: TemplateConfig]
    /// Every template's required params: the params a send's body is read for (`SendBody`).
    let watchedParams: [String]
    let state: Mutex<State>
    /// Monotonic seconds since the server started.
    let now: @Sendable () -> TimeInterval
    let wallNow: @Sendable () -> Date
    /// How message numbers are dealt: the n-th commit gets `n × stride + offset`.
    let numbering: MessageNumbering

    struct State {
        /// Idempotency keys by number (`KeyIndex`), and each one's entry (nil: free again).
        var keys = KeyIndex(capacity: 1 << 16)
        var idempotency: [IdempotencyEntry?] = []
        /// The n-th commit's message at n − 1 (its number is `numbering.number(n)`).
        var messages: [StoredMessage] = []
        var messageCount: UInt32 = 0
        var uploads: Set<String> = []
        var uploadCount = 0

        /// The key's number in `idempotency` (a new key gets a free entry).
        mutating func keyNumber(_ key: String, _ fingerprint: UInt64) -> Int {
            let (number, inserted) = keys.insert(key, fingerprint: fingerprint)
            if inserted { idempotency.append(nil) }
            return number
        }

        func message(_ number: UInt32, _ numbering: MessageNumbering) -> StoredMessage? {
            numbering.count(of: number).flatMap { $0 >= 1 && $0 <= messages.count ? messages[Int($0) - 1] : nil }
        }
    }

    enum IdempotencyEntry {
        case inProgress(fingerprint: UInt64)
        /// The answer is rebuilt from the stored message, byte for byte the same.
        case completed(fingerprint: UInt64, message: UInt32)
    }

    struct StoredMessage {
        var created: TimeInterval
        var createdWall: Date
        var statusToken: String
        var held: Bool
        var templateID: String
        var serviceID: String?
        var locale: String?
    }

    /// The 202 answer of an accepted send.
    static func acceptedResponse(_ number: UInt32, _ message: StoredMessage) -> ServerResponse {
        var writer = JSONBytes()
        writer.raw("{")
        if let locale = message.locale {
            writer.key("locale")
            writer.string(locale)
            writer.raw(",")
        }
        writer.raw("\"message_id\":\"msg_")  // MessageID.prefix
        writer.integer(Int(number))
        writer.raw("\",\"status\":")
        writer.raw(message.held ? "\"held\"" : "\"queued\"")
        writer.raw(",\"status_token\":")
        writer.string(message.statusToken)
        writer.raw("}")
        return ServerResponse(status: 202, headers: jsonHeaders, body: writer.bytes)
    }

    static let jsonHeaders: FrontmailHTTPHeaders = ["Content-Type": "application/json"]

    /// `stk_` and 16 hex digits.
    static func statusToken(_ value: UInt64) -> String {
        // Written straight into the string: one allocation.
        String(unsafeUninitializedCapacity: 20) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for (index, byte) in "stk_".utf8.enumerated() { buffer[index] = byte }
            for nibble in 0..<16 {
                buffer[4 + nibble] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 0xF)]
            }
            return 20
        }
    }

    public init(
        config: EmulatorConfig = EmulatorConfig(), seed: UInt64 = 1,
        now: @escaping @Sendable () -> TimeInterval, wallNow: @escaping @Sendable () -> Date = { Date() },
        numbering: MessageNumbering = .single
    ) {
        self.numbering = numbering
        self.config = config
        self.seed = seed
        self.templates = Dictionary(config.templates.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var watched: [String] = []
        for name in config.templates.flatMap(\.requiredParams) where !watched.contains(name) { watched.append(name) }
        self.watchedParams = watched
        self.now = now
        self.wallNow = wallNow
        var initial = State()
        initial.uploads = Set(config.uploads)
        initial.idempotency.reserveCapacity(1 << 16)
        initial.messages.reserveCapacity(1 << 16)
        self.state = Mutex(initial)
    }

    /// Accepted messages so far (each idempotency key counts once).
    public var committedCount: Int { Int(state.withLock { $0.messageCount }) }

    /// Idempotency keys claimed by a send still being processed (a duplicate of one is 409 `conflict`).
    public var keysInProgress: Int {
        state.withLock { state in
            state.idempotency.count(where: { if case .inProgress? = $0 { true } else { false } })
        }
    }

    // MARK: Send, phase 1

    /// What the first phase decided.
    public enum Begin: Sendable {
        /// Refused before the key was claimed (auth, origin, body, key format, conflicts).
        case respond(ServerResponse)
        /// A completed duplicate: the original answer, replayed.
        case replay(ServerResponse, message: UInt32)
        /// The key (if any) is now in progress; call `finishSend`.
        case claimed(SendClaim)
    }

    public struct SendClaim: Sendable {
        /// The Idempotency-Key's entry in the idempotency store, once claimed.
        var keyNumber: Int?
        var fingerprint: UInt64
        var body: SendBody
        var hasOrigin: Bool
    }

    /// The body of a send, read for what the emulator needs (nil: not a JSON object).
    public func readBody(_ bytes: [UInt8]) -> SendBody? {
        SendBody.read(bytes, watchedParams: watchedParams)
    }

    /// `parsed` is the body already read (`readBody`), `fingerprint` the body's and `keyFingerprint`
    /// the Idempotency-Key's `Fingerprint.of`, when the caller has them.
    public func beginSend(
        _ request: ServerRequest, parsed: SendBody?? = nil, fingerprint: UInt64? = nil,
        keyFingerprint: UInt64? = nil
    ) -> Begin {
        let publicKey = request.headers["X-Frontmail-Public-Key"]
        guard let publicKey, publicKey.hasPrefix("pk_"),
            config.publicKeys.isEmpty || config.publicKeys.contains(publicKey)
        else {
            return .respond(.error(401, "invalid_public_key", "The public key is missing or not valid."))
        }
        let origin = request.headers["Origin"] ?? request.headers["Referer"]
        if let origin {
            if !config.allowedOrigins.isEmpty && !config.allowedOrigins.contains(where: { origin.hasPrefix($0) }) {
                return .respond(.error(403, "origin_not_allowed", "The origin \(origin) is not allowed."))
            }
        } else if !config.allowMobileApps {
            return .respond(
                .error(
                    403, "origin_not_allowed",
                    "Requests without an Origin need Security → Mobile apps → Allow mobile apps."))
        }
        guard let body = parsed ?? readBody(request.body) else {
            return .respond(.error(400, "invalid_body", "The body is not a JSON object."))
        }
        guard body.userID == .string(publicKey) else {
            return .respond(.error(401, "invalid_public_key", "user_id does not match the public key header."))
        }
        let key = request.headers["Idempotency-Key"]
        let fingerprint = fingerprint ?? Fingerprint.of(request.body)
        let keyFingerprint = keyFingerprint ?? key.map { Fingerprint.of($0) } ?? 0
        let claim = SendClaim(fingerprint: fingerprint, body: body, hasOrigin: origin != nil)
        guard let key else { return .claimed(claim) }
        guard !key.isEmpty, key.utf8.count <= 255 else {
            return .respond(.error(400, "invalid_idempotency_key", "An Idempotency-Key has 1 to 255 characters."))
        }
        return state.withLock { state -> Begin in
            let number = state.keyNumber(key, keyFingerprint)
            switch state.idempotency[number] {
            case nil:
                state.idempotency[number] = .inProgress(fingerprint: fingerprint)
                var claimed = claim
                claimed.keyNumber = number
                return .claimed(claimed)
            case .inProgress(let stored)?:
                if stored != fingerprint { return .respond(Self.fingerprintConflict) }
                return .respond(
                    .error(409, "conflict", "A request with this Idempotency-Key is still being processed."))
            case .completed(let stored, let message)?:
                if stored != fingerprint { return .respond(Self.fingerprintConflict) }
                guard let original = state.message(message, numbering) else {
                    return .respond(.error(500, "internal_error", "The stored message is missing."))
                }
                return .replay(Self.acceptedResponse(message, original), message: message)
            }
        }
    }

    private static let fingerprintConflict = ServerResponse.error(
        409, "idempotency_conflict", "This Idempotency-Key was used with a different request body.")

    /// The claimed send will never be processed (the server dropped it): its key is free again,
    /// as a refused send's is.
    public func releaseSend(_ claim: SendClaim) {
        guard let number = claim.keyNumber else { return }
        state.withLock { state in
            if case .inProgress? = state.idempotency[number] { state.idempotency[number] = nil }
        }
    }

    // MARK: Send, phase 2

    /// Validates the send and commits it. Returns the answer and the message committed (if any).
    public func finishSend(_ claim: SendClaim) -> (ServerResponse, message: UInt32?) {
        let decided = validate(claim)
        return state.withLock { state -> (ServerResponse, message: UInt32?) in
            guard case .accept(let held, let templateID, let serviceID, let locale) = decided else {
                if let number = claim.keyNumber { state.idempotency[number] = nil }
                if case .reject(let response) = decided { return (response, nil) }
                return (.error(500, "internal_error", "unreachable"), nil)
            }
            state.messageCount += 1
            let number = numbering.number(state.messageCount)
            var random = SeededRandom(seed: seed, mixing: UInt64(number))
            let message = StoredMessage(
                created: now(), createdWall: wallNow(), statusToken: Self.statusToken(random.next()), held: held,
                templateID: templateID, serviceID: serviceID, locale: locale)
            state.messages.append(message)
            let response = Self.acceptedResponse(number, message)
            if let keyNumber = claim.keyNumber {
                state.idempotency[keyNumber] = .completed(fingerprint: claim.fingerprint, message: number)
            }
            return (response, number)
        }
    }
}
