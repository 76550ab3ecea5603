import Foundation
import Frontmail

/// A response of the fake API.
public struct ServerResponse: Sendable, Hashable {
    public var status: Int
    public var headers: FrontmailHTTPHeaders
    public var body: [UInt8]
    /// What the Retry-After header asks for, as the plan meant it (nil: no header, or text that
    /// asks for nothing); set wherever the fake writes that header (`setRetryAfter`).
    public var retryAfterMeant: RetryAfterMeant?

    public init(status: Int, headers: FrontmailHTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ value: FrontmailValue) -> ServerResponse {
        var writer = JSONBytes()
        writer.value(value)
        return ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: writer.bytes)
    }

    /// The API's error body (wire contract §3.1), with the docs URL built from the code.
    public static func error(
        _ status: Int, _ code: String, _ message: String, details: FrontmailValue? = nil
    ) -> ServerResponse {
        var error: [String: FrontmailValue] = [
            "code": .string(code), "message": .string(message),
            "docs_url": .string(errorsPageLink(code)),
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

    /// The API's documentation link of an error code (wire contract §3.1), written by the fake
    /// itself: `_` becomes `-`, and bytes outside `A-Za-z0-9-._~` are percent-encoded.
    static func errorsPageLink(_ code: String) -> String {
        var anchor = ""
        for byte in code.utf8 {
            if byte == UInt8(ascii: "_") {
                anchor += "-"
            } else if byte.isASCIILetterOrDigit || "-.~".utf8.contains(byte) {
                anchor.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                anchor += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return "https://docs.frontmail.dev/reference/errors/#" + anchor
    }

    /// Writes a Retry-After header and records what it means.
    public mutating func setRetryAfter(_ value: String, meaning: RetryAfterMeant?) {
        headers.set(name: "Retry-After", value: value)
        retryAfterMeant = meaning
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
