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
        var writer = JSONWriter(capacity: 128)
        writer.writeRaw("{")
        if let locale = message.locale {
            writer.writeKey("locale")
            writer.writeString(locale)
            writer.writeRaw(",")
        }
        writer.writeRaw("\"message_id\":\"msg_")  // MessageID.prefix
        writer.writeInteger(Int(number))
        writer.writeRaw("\",\"status\":")
        writer.writeRaw(message.held ? "\"held\"" : "\"queued\"")
        writer.writeRaw(",\"status_token\":")
        writer.writeString(message.statusToken)
        writer.writeRaw("}")
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

    private enum Decision {
        case accept(held: Bool, templateID: String, serviceID: String?, locale: String?)
        case reject(ServerResponse)
    }

    private func validate(_ claim: SendClaim) -> Decision {
        let body = claim.body
        guard case .string(let templateID)? = body.templateID else {
            return .reject(.error(400, "invalid_body", "template_id is required."))
        }
        guard let template = templates[templateID] else {
            return .reject(.error(404, "template_not_found", "No template \(templateID)."))
        }
        if let params = body.params, !params.isObject {
            return .reject(.error(400, "invalid_body", "template_params must be an object."))
        }
        let missing = body.missing(template.requiredParams)
        if !missing.isEmpty {
            return .reject(
                .error(
                    422, "invalid_template_params", "Missing params: \(missing.joined(separator: ", ")).",
                    details: ["missing": .array(missing.map { .string($0) })]))
        }
        var serviceID: String?
        if case .string(let service)? = body.serviceID {
            if !template.services.isEmpty && !template.services.contains(service) {
                return .reject(.error(404, "service_not_found", "No service \(service) for this template."))
            }
            serviceID = service
        }
        if let rejection = checkTurnstile(template: template, body: body) { return .reject(rejection) }
        var locale: String?
        if case .string(let requested)? = body.locale {
            if requested.contains("_") {
                return .reject(.error(400, "invalid_body", "locale must be a BCP-47 tag (de-AT, not de_AT)."))
            }
            locale = Self.resolveLocale(requested, template: template)
        }
        if let rejection = checkAttachments(body.attachments) { return .reject(rejection) }
        switch config.credits {
        case .reject:
            return .reject(.error(402, "insufficient_credits", "The organization has no credits."))
        case .held:
            return .accept(held: true, templateID: templateID, serviceID: serviceID, locale: locale)
        case .queued:
            return .accept(held: false, templateID: templateID, serviceID: serviceID, locale: locale)
        }
    }

    private func checkTurnstile(template: TemplateConfig, body: SendBody) -> ServerResponse? {
        if let key = body.turnstileKey, key != "org", key != "frontmail" {
            return .error(400, "invalid_body", "turnstile_key must be \"org\" or \"frontmail\".")
        }
        guard template.turnstile else { return nil }
        guard config.turnstileConfigured else {
            return .error(403, "captcha_not_configured", "The template needs Turnstile but no keys are configured.")
        }
        guard case .string(let token)? = body.turnstileToken, !token.isEmpty else {
            return .error(403, "captcha_required", "This template requires a Turnstile token.")
        }
        if config.badTurnstileTokens.contains(token) {
            return .error(403, "captcha_failed", "The Turnstile token was not accepted.")
        }
        return nil
    }

    private func checkAttachments(_ value: FrontmailValue?) -> ServerResponse? {
        guard let value else { return nil }
        guard case .array(let items) = value else {
            return .error(400, "invalid_body", "attachments must be an array.")
        }
        for item in items {
            if case .string(let id)? = item["upload_id"] {
                let known = state.withLock { $0.uploads.contains(id) }
                if !known { return .error(404, "not_found", "No upload \(id).") }
            } else if case .string(let base64)? = item["content_base64"] {
                let decodedSize = base64.utf8.count / 4 * 3
                if decodedSize > config.maxAttachmentBytes {
                    return .error(
                        413, "attachment_too_large", "An attachment is larger than \(config.maxAttachmentBytes) bytes.")
                }
            } else {
                return .error(400, "invalid_body", "Each attachment has upload_id or content_base64.")
            }
        }
        return nil
    }

    /// Exact tag → same base language → the template's default (nil = default).
    static func resolveLocale(_ requested: String, template: TemplateConfig) -> String? {
        guard !template.locales.isEmpty else { return nil }
        if let exact = template.locales.first(where: { $0.caseInsensitiveCompare(requested) == .orderedSame }) {
            return exact
        }
        let base = requested.split(separator: "-").first.map(String.init) ?? requested
        if let sameBase = template.locales.first(where: { $0.caseInsensitiveCompare(base) == .orderedSame }) {
            return sameBase
        }
        return template.defaultLocale
    }
}

/// How an emulator numbers its messages. Shards of one run each have their own server in process:
/// shard i of N deals `n × N + i`, so message ids stay unique across the shards and the merged
/// ledger needs no renumbering (the history's message ids are the ones the client saw).
public struct MessageNumbering: Sendable, Hashable {
    public var stride: UInt32
    public var offset: UInt32

    /// One server for the whole run: 1, 2, 3, …
    public static let single = MessageNumbering(stride: 1, offset: 0)

    public init(stride: UInt32, offset: UInt32) {
        precondition(stride >= 1 && offset < stride, "offset must be below stride")
        self.stride = stride
        self.offset = offset
    }

    /// The number of the `count`-th commit (1-based), never 0 (0 means no message in the ledger).
    /// Past UInt32's range numbers wrap (four billion commits in one server).
    func number(_ count: UInt32) -> UInt32 { count &* stride &+ offset }

    /// Which commit dealt `number` (the inverse of `number(_:)`); nil for a number it never deals.
    func count(of number: UInt32) -> UInt32? {
        guard number >= offset, (number - offset) % stride == 0 else { return nil }
        return (number - offset) / stride
    }
}
