import Foundation
import Frontmail

/// A request as the fake API sees it, whichever front end it came through.
public struct ServerRequest: Sendable {
    public var method: String
    /// The path without the query string.
    public var path: String
    public var query: String?
    public var headers: FrontmailHTTPHeaders
    public var body: [UInt8]

    public init(
        method: String, path: String, query: String? = nil, headers: FrontmailHTTPHeaders = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Splits a request target (`/v1/messages/x?token=y`) into path and query.
    public init(method: String, target: String, headers: FrontmailHTTPHeaders, body: [UInt8]) {
        if let mark = target.firstIndex(of: "?") {
            self.init(
                method: method, path: String(target[..<mark]), query: String(target[target.index(after: mark)...]),
                headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    public var endpoint: Endpoint {
        switch (method, path) {
        case ("POST", "/v1/send"): return .send
        case ("GET", "/v1/public-config"): return .publicConfig
        case ("POST", "/v1/uploads"): return .uploads
        case ("GET", _) where path.hasPrefix("/v1/messages/"): return .status
        default: return .other
        }
    }
}
