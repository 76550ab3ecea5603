import Foundation
import Frontmail

extension Emulator {
    /// Every endpoint but send (which is two-phase).
    public func handle(_ request: ServerRequest) -> ServerResponse {
        switch request.endpoint {
        case .status: return messageStatus(request)
        case .publicConfig: return publicConfig()
        case .uploads: return upload(request)
        case .send:
            // One phase, for callers that need no fault window.
            switch beginSend(request) {
            case .respond(let response), .replay(let response, _): return response
            case .claimed(let claim): return finishSend(claim).0
            }
        case .other:
            return .error(404, "not_found", "No route for \(request.method) \(request.path).")
        }
    }

    func publicConfig() -> ServerResponse {
        let key: FrontmailValue = config.mobileSiteKey.map { .string($0) } ?? .null
        let base: FrontmailValue = config.mobileBaseURL.map { .string($0) } ?? .null
        return .json(200, ["turnstile": ["mobileSiteKey": key, "mobileBaseUrl": base]])
    }

    func upload(_ request: ServerRequest) -> ServerResponse {
        guard request.headers["X-Frontmail-Public-Key"]?.hasPrefix("pk_") == true else {
            return .error(401, "invalid_public_key", "The public key is missing or not valid.")
        }
        if request.body.count > config.maxAttachmentBytes {
            return .error(413, "attachment_too_large", "The upload is larger than \(config.maxAttachmentBytes) bytes.")
        }
        let id = state.withLock { state -> String in
            state.uploadCount += 1
            let id = "upl_\(state.uploadCount)"
            state.uploads.insert(id)
            return id
        }
        return .json(201, ["upload_id": .string(id)])
    }

    func messageStatus(_ request: ServerRequest) -> ServerResponse {
        let encoded = request.path.dropFirst("/v1/messages/".count)
        let id = String(encoded).removingPercentEncoding ?? String(encoded)
        let notFound = ServerResponse.error(404, "message_not_found", "No message \(id) for this status token.")
        guard let number = MessageID.number(id), let token = request.headers["X-Frontmail-Status-Token"] else {
            return notFound
        }
        guard let message = state.withLock({ $0.message(number, numbering) }), message.statusToken == token else {
            return notFound
        }
        let age = now() - message.created
        let lifecycle = config.lifecycle
        var events: [FrontmailValue] = [
            ["type": "accepted", "at": .string(HTTPDate.iso8601(from: message.createdWall))]
        ]
        var status = message.held ? "held" : "queued"
        var sentAt: FrontmailValue?
        if !message.held {
            let stages: [(String, TimeSpan)] = [
                ("sending", lifecycle.sending), ("sent", lifecycle.sent), ("delivered", lifecycle.delivered),
            ]
            for (name, offset) in stages where age >= offset.seconds {
                status = name
                let at = FrontmailValue.string(
                    HTTPDate.iso8601(from: message.createdWall.addingTimeInterval(offset.seconds)))
                if name == "sent" { sentAt = at }
                if name != "sending" { events.append(["type": .string(name), "at": at]) }
            }
        }
        var body: [String: FrontmailValue] = [
            "message_id": .string(id), "status": .string(status),
            "created_at": .string(HTTPDate.iso8601(from: message.createdWall)),
            "template_id": .string(message.templateID),
            "events": .array(events),
        ]
        if let sentAt { body["sent_at"] = sentAt }
        if let service = message.serviceID { body["service_id"] = .string(service) }
        return .json(200, .object(body))
    }
}
