import Frontmail

/// One client connection, owned by one event loop thread.
final class Connection {
    enum Phase {
        case reading
        /// Waiting for the ticket's wait to pass.
        case waiting
        case writing
        /// Headers sent; the body goes out a little at every tick.
        case trickling
        case hanging
        case closed
    }

    let fd: Int32
    /// Distinguishes this connection from an earlier one with the same descriptor.
    let token: UInt64
    let id: UInt32
    var phase: Phase = .reading
    var input: [UInt8] = []
    var output: [UInt8] = []
    var outputOffset = 0
    var wantsWrite = false
    var keepAlive = true
    var closeAfterWrite = false
    var ticket: Ticket?
    /// The status of the response being written (for the ledger).
    var status = 0
    var trickleBody: [UInt8] = []
    var trickleOffset = 0
    var trickleChunk = 1
    var trickleInterval = 0.01

    init(fd: Int32, token: UInt64, id: UInt32) {
        self.fd = fd
        self.token = token
        self.id = id
        input.reserveCapacity(4096)
    }

    static func serialize(head response: ServerResponse, contentLength: Int, keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        var hasType = false
        for field in response.headers {
            if field.name.caseInsensitiveEqualsASCII("Content-Length")
                || field.name.caseInsensitiveEqualsASCII("Connection")
            {
                continue
            }
            if field.name.caseInsensitiveEqualsASCII("Content-Type") { hasType = true }
            text += field.name + ": " + field.value + "\r\n"
        }
        if !hasType && contentLength > 0 { text += "Content-Type: application/json\r\n" }
        text += "Content-Length: \(contentLength)\r\n"
        if !keepAlive { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 451: return "Unavailable For Legal Reasons"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status"
        }
    }
}

extension String {
    func caseInsensitiveEqualsASCII(_ other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { ($0 | 0x20) == ($1 | 0x20) }
    }
}
