import Foundation
import Frontmail

/// A response of the fake API.
public struct ServerResponse: Sendable, Hashable {
    public var status: Int
    public var headers: FrontmailHTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: FrontmailHTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ value: FrontmailValue) -> ServerResponse {
        var writer = JSONWriter(capacity: 128)
        writer.writeLenient(value)
        return ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: writer.bytes)
    }

    /// The API's error body (wire contract §3.1), with the docs URL built from the code.
    public static func error(
        _ status: Int, _ code: String, _ message: String, details: FrontmailValue? = nil
    ) -> ServerResponse {
        var error: [String: FrontmailValue] = [
            "code": .string(code), "message": .string(message),
            "docs_url": .string(FrontmailError.Code(rawValue: code).docsURL.absoluteString),
        ]
        if let details { error["details"] = details }
        return json(status, ["error": .object(error)])
    }

    /// The usual code for a status (`503` → `service_unavailable`).
    public static func defaultCode(for status: Int) -> String {
        switch status {
        case 400: return "bad_request"
        case 401: return "unauthorized"
        case 402: return "insufficient_credits"
        case 403: return "forbidden"
        case 404: return "not_found"
        case 409: return "conflict"
        case 413: return "payload_too_large"
        case 422: return "invalid_template_params"
        case 429: return "rate_limited"
        case 451: return "recipient_suppressed"
        case 502: return "provider_error"
        case 503: return "service_unavailable"
        default: return status >= 500 ? "internal_error" : "bad_request"
        }
    }
}
