import Foundation

/// The delivery status of one message (`GET /v1/messages/{id}`).
public struct MessageStatus: Sendable, Hashable {
    /// Where a message is in its life.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        case queued
        case sending
        case sent
        case delivered
        case bounced
        case complained
        case failed
        case held
        case heldServiceError
        case discarded
        /// A status this version of the SDK does not know, kept as it came.
        case unknown(String)

        public init(rawValue: String) {
            switch rawValue {
            case "queued": self = .queued
            case "sending": self = .sending
            case "sent": self = .sent
            case "delivered": self = .delivered
            case "bounced": self = .bounced
            case "complained": self = .complained
            case "failed": self = .failed
            case "held": self = .held
            case "held_service_error": self = .heldServiceError
            case "discarded": self = .discarded
            default: self = .unknown(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .queued: return "queued"
            case .sending: return "sending"
            case .sent: return "sent"
            case .delivered: return "delivered"
            case .bounced: return "bounced"
            case .complained: return "complained"
            case .failed: return "failed"
            case .held: return "held"
            case .heldServiceError: return "held_service_error"
            case .discarded: return "discarded"
            case .unknown(let raw): return raw
            }
        }

        public var description: String { rawValue }
    }

    /// One step in a message's history (`accepted`, `sent`, …).
    public struct Event: Sendable, Hashable {
        public var type: String
        /// The timestamp as the API wrote it (ISO-8601).
        public var at: String
        /// The event's other keys.
        public var extra: [String: FrontmailValue]

        public init(type: String, at: String, extra: [String: FrontmailValue] = [:]) {
            self.type = type
            self.at = at
            self.extra = extra
        }

        public subscript(key: String) -> FrontmailValue? { extra[key] }
    }

    public var messageID: String
    public var status: Status
    /// When the message was accepted, as the API wrote it (ISO-8601).
    public var createdAt: String
    public var sentAt: String?
    public var templateID: String?
    public var serviceID: String?
    /// The history in the order the API listed it.
    public var events: [Event]
    /// Keys of the response this version of the SDK does not know.
    public var extra: [String: FrontmailValue]

    public init(
        messageID: String, status: Status, createdAt: String, sentAt: String? = nil, templateID: String? = nil,
        serviceID: String? = nil, events: [Event] = [], extra: [String: FrontmailValue] = [:]
    ) {
        self.messageID = messageID
        self.status = status
        self.createdAt = createdAt
        self.sentAt = sentAt
        self.templateID = templateID
        self.serviceID = serviceID
        self.events = events
        self.extra = extra
    }
}
