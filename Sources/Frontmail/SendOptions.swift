import Foundation

/// Which Turnstile secret verifies a token (`turnstile_key` on the wire).
public enum TurnstileKey: String, Sendable, Hashable, CaseIterable {
    /// Your organisation's own Turnstile keys (Security → Bot protection).
    case org
    /// Frontmail's shared mobile key.
    case frontmail
}

/// An attachment of a send: bytes sent inline (base64) or an earlier upload named by its id.
public enum Attachment: Sendable, Hashable {
    case data(Data, filename: String, contentType: String)
    case upload(id: String)
}

/// Everything about a send besides the template, its params and the service.
public struct SendOptions: Sendable, Hashable {
    /// The token from the Turnstile widget, when the template requires it.
    public var turnstileToken: String?
    /// Which secret verifies the token; nil leaves it to the server (Frontmail's key for apps).
    public var turnstileKey: TurnstileKey?
    public var attachments: [Attachment]?
    /// Used exactly as given on every attempt; nil or empty makes a new random key per send.
    public var idempotencyKey: String?
    /// A BCP-47 tag such as `de-AT` (not `de_AT`); nil or empty uses the template's default language.
    public var locale: String?

    public init(
        turnstileToken: String? = nil, turnstileKey: TurnstileKey? = nil, attachments: [Attachment]? = nil,
        idempotencyKey: String? = nil, locale: String? = nil
    ) {
        self.turnstileToken = turnstileToken
        self.turnstileKey = turnstileKey
        self.attachments = attachments
        self.idempotencyKey = idempotencyKey
        self.locale = locale
    }
}

/// What the API answered to an accepted send.
public struct SendResult: Sendable, Hashable {
    /// Whether the message is on its way (`queued`) or waiting for the organisation's credits (`held`).
    public struct Status: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }

        /// Accepted for delivery.
        public static let queued: Status = "queued"
        /// Accepted; it will be delivered once the organisation has credits.
        public static let held: Status = "held"
    }

    public var messageID: String
    public var status: Status
    /// Lets the app read this message's status (`Frontmail.status(messageID:statusToken:)`).
    public var statusToken: String
    /// The language actually used; nil means the template's default.
    public var locale: String?

    public init(messageID: String, status: Status, statusToken: String, locale: String? = nil) {
        self.messageID = messageID
        self.status = status
        self.statusToken = statusToken
        self.locale = locale
    }
}
