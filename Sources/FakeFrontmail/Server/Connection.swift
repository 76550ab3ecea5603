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
    var input = InputBuffer()
    /// How far a chunked request body in `input` has been framed (`HTTPRequestParser.Progress`).
    var chunkProgress: HTTPRequestParser.Progress?
    /// `processInput` is running for this connection (a finished write must not re-enter it).
    var processing = false
    /// Reading is paused until the requests already buffered are answered.
    var readPaused = false
    /// When the connection last received a byte, or started waiting for a request (loop clock).
    var lastActivity: Double
    /// When the first byte of the request being read arrived (nil: none yet).
    var requestStarted: Double?
    /// Bytes of `input` counted in the server's input budget.
    var accounted = 0
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

    init(fd: Int32, token: UInt64, id: UInt32, now: Double) {
        self.fd = fd
        self.token = token
        self.id = id
        self.lastActivity = now
    }

    static func serialize(head response: ServerResponse, contentLength: Int, keepAlive: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + contentLength)
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(response.status, to: &bytes)
        bytes.append(32)
        bytes.append(contentsOf: reason(response.status).utf8)
        bytes.append(contentsOf: [13, 10])
        var hasType = false
        for field in response.headers {
            if field.name.caseInsensitiveEqualsASCII("Content-Length")
                || field.name.caseInsensitiveEqualsASCII("Connection")
            {
                continue
            }
            if field.name.caseInsensitiveEqualsASCII("Content-Type") { hasType = true }
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: [58, 32])
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: [13, 10])
        }
        if !hasType && contentLength > 0 { bytes.append(contentsOf: "Content-Type: application/json\r\n".utf8) }
        bytes.append(contentsOf: "Content-Length: ".utf8)
        appendDecimal(contentLength, to: &bytes)
        bytes.append(contentsOf: [13, 10])
        if !keepAlive { bytes.append(contentsOf: "Connection: close\r\n".utf8) }
        bytes.append(contentsOf: [13, 10])
        return bytes
    }

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &bytes) }
        bytes.append(UInt8(truncatingIfNeeded: value % 10) &+ 48)
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
        case 421: return "Misdirected Request"
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
        FrontmailHTTPHeaders.namesEqual(self, other)
    }
}

/// Bytes read from a connection and not parsed yet: requests are consumed from the front without
/// moving the rest, so a burst of pipelined requests costs one pass, not one copy per request.
struct InputBuffer {
    private var bytes: [UInt8] = []
    private var start = 0

    var count: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }

    mutating func append(_ chunk: ArraySlice<UInt8>) {
        if start > 0 {
            bytes.removeFirst(start)
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    mutating func consume(_ count: Int) {
        start += count
        if start >= bytes.count { removeAll() }
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
        start = 0
    }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start...])) }
    }
}
