import Foundation

extension Frontmail {
    /// The error for a non-2xx response (wire contract §3.1): the body's `error` object when there
    /// is one, else `internal_error` (5xx) or `bad_request`; Retry-After parsed in every case.
    static func responseError(_ response: FrontmailHTTPResponse, now: Date) -> FrontmailError {
        let status = response.status
        let retryAfter = RetryAfter.parse(response.headers["Retry-After"], now: now)
        let fallbackMessage = "Request failed with status \(status)"
        let body = try? JSONReader.parse(response.body)
        guard case .object(let errorObject)? = body?["error"],
            case .string(let codeText)? = errorObject["code"], !codeText.isEmpty
        else {
            return FrontmailError(
                code: (500...599).contains(status) ? .internalError : .badRequest, message: fallbackMessage,
                status: status,
                retryAfter: retryAfter)
        }
        let code = FrontmailError.Code(rawValue: codeText)
        var message = fallbackMessage
        if case .string(let text)? = errorObject["message"], !text.isEmpty { message = text }
        var docsURL: URL?
        if case .string(let text)? = errorObject["docs_url"], !text.isEmpty { docsURL = URL(string: text) }
        return FrontmailError(
            code: code, message: message, status: status, docsURL: docsURL, details: errorObject["details"],
            retryAfter: retryAfter)
    }

    private static func invalidResponse(_ response: FrontmailHTTPResponse, _ reason: String) -> FrontmailError {
        .client(
            .invalidResponse,
            "The API answered \(response.status) but \(reason). The request may have been accepted; it was not retried."
        )
    }

    /// The members of a send's answer that a `SendResult` holds, in `parseSendResult`'s order.
    private static let sendResultKeys = ["message_id", "status", "status_token", "locale"]

    /// Reads only the four members a `SendResult` needs (the rest of the body is validated, not kept).
    static func parseSendResult(_ response: FrontmailHTTPResponse) throws(FrontmailError) -> SendResult {
        guard !response.body.isEmpty else { throw invalidResponse(response, "with an empty body") }
        // A tuple, not an array: no allocation.
        var fields: (FrontmailValue?, FrontmailValue?, FrontmailValue?, FrontmailValue?) = (nil, nil, nil, nil)
        do {
            _ = try JSONReader.members(named: sendResultKeys, in: response.body) { index, value in
                switch index {
                case 0: fields.0 = value
                case 1: fields.1 = value
                case 2: fields.2 = value
                default: fields.3 = value
                }
            }
        } catch {
            throw invalidResponse(response, "the body is not JSON")
        }
        guard case .string(let messageID)? = fields.0, !messageID.isEmpty else {
            throw invalidResponse(response, "the body has no message_id")
        }
        let status = fields.1?.stringValue ?? SendResult.Status.queued.rawValue
        let statusToken = fields.2?.stringValue ?? ""
        let locale = fields.3?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return SendResult(
            messageID: messageID, status: SendResult.Status(rawValue: status), statusToken: statusToken, locale: locale)
    }

    private static let knownStatusKeys: Set<String> = [
        "message_id", "status", "created_at", "sent_at", "template_id", "service_id", "events",
    ]

    static func parseMessageStatus(_ response: FrontmailHTTPResponse) throws(FrontmailError) -> MessageStatus {
        guard let body = try? JSONReader.parse(response.body), case .object(let members) = body else {
            throw invalidResponse(response, "the body is not a JSON object")
        }
        guard case .string(let messageID)? = members["message_id"], case .string(let status)? = members["status"]
        else {
            throw invalidResponse(response, "the body has no message_id or status")
        }
        var events: [MessageStatus.Event] = []
        if case .array(let items)? = members["events"] {
            for item in items {
                guard case .object(var fields) = item, case .string(let type)? = fields["type"] else { continue }
                let at = fields["at"]?.stringValue ?? ""
                fields["type"] = nil
                fields["at"] = nil
                events.append(MessageStatus.Event(type: type, at: at, extra: fields))
            }
        }
        return MessageStatus(
            messageID: messageID,
            status: MessageStatus.Status(rawValue: status),
            createdAt: members["created_at"]?.stringValue ?? "",
            sentAt: members["sent_at"]?.stringValue,
            templateID: members["template_id"]?.stringValue,
            serviceID: members["service_id"]?.stringValue,
            events: events,
            extra: members.filter { !knownStatusKeys.contains($0.key) })
    }
}
