import Frontmail

/// Parses one HTTP/1.1 request from the front of a buffer: request line, headers,
/// `Content-Length` or chunked body, with limits. Never traps on any input.
public struct HTTPRequestParser: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Request line plus headers (431 beyond).
        public var maxHeaderBytes = 16 * 1024
        /// The decoded body (413 beyond).
        public var maxBodyBytes = 16 * 1024 * 1024
        public var maxHeaderCount = 100

        public init() {}
    }

    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: FrontmailHTTPHeaders
        public var body: [UInt8]
        public var keepAlive: Bool
    }

    public enum Result: Sendable {
        case needMore
        case complete(Request, consumed: Int)
        /// Answer `status` and close the connection.
        case invalid(status: Int, reason: String)
    }

    /// How far the framing of a chunked body has got: kept by the connection between reads of
    /// one request, so that each read frames only what arrived since (linear in the body, whatever
    /// the sizes of the reads and the chunks). Indexes are into the connection's buffer, which
    /// only grows until the request is consumed.
    public struct Progress: Sendable {
        /// Where the body starts (a progress of another request's body is not used).
        var bodyStart: Int
        /// The next chunk-size line.
        var next: Int
        /// The chunks' data so far.
        var ranges: [Range<Int>] = []
        var length = 0
    }

    /// The longest chunk-size line with its extensions, and all trailer fields together.
    public static let maxChunkLineBytes = 4096

    public var limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    public func parse(_ buffer: UnsafeBufferPointer<UInt8>) -> Result {
        var progress: Progress?
        return parse(buffer, progress: &progress)
    }

    /// `parse`, resuming a chunked body's framing from `progress` (reset it when a request is
    /// consumed or refused).
    public func parse(_ buffer: UnsafeBufferPointer<UInt8>, progress: inout Progress?) -> Result {
        let count = buffer.count
        guard count > 0 else { return .needMore }
        // Tolerate empty lines before a request (RFC 9112 §2.2); they count against the head limit,
        // so a flood of them is refused instead of being held and rescanned.
        var start = 0
        while start + 1 < count, buffer[start] == 13, buffer[start + 1] == 10 {
            start += 2
            guard start <= limits.maxHeaderBytes else {
                return .invalid(status: 400, reason: "too many empty lines before the request")
            }
        }
        guard let headEnd = Self.find(terminator: buffer, from: start, limit: limits.maxHeaderBytes - start) else {
            return count > limits.maxHeaderBytes
                ? .invalid(status: 431, reason: "request header fields too large") : .needMore
        }
        var lines = Self.lines(buffer, from: start, to: headEnd)
        guard !lines.isEmpty else { return .invalid(status: 400, reason: "empty request") }
        let requestLine = lines.removeFirst()
        guard let (method, target, minor) = Self.requestLine(buffer, requestLine) else {
            return .invalid(status: 400, reason: "malformed request line")
        }
        guard lines.count <= limits.maxHeaderCount else {
            return .invalid(status: 431, reason: "too many header fields")
        }
        var headers = FrontmailHTTPHeaders()
        var hasHost = false
        var hasKey = false
        var contentLength: Int?
        var chunked = false
        var connection: String?
        for line in lines {
            guard let (name, value) = Self.header(buffer, line) else {
                return .invalid(status: 400, reason: "malformed header field")
            }
            switch name.lowercased() {
            case "content-length":
                guard let length = Int(value), length >= 0, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                    return .invalid(status: 400, reason: "invalid Content-Length")
                }
                if let contentLength, contentLength != length {
                    return .invalid(status: 400, reason: "conflicting Content-Length")
                }
                contentLength = length
            case "transfer-encoding":
                guard value.lowercased() == "chunked" else {
                    return .invalid(status: 400, reason: "unsupported Transfer-Encoding")
                }
                // RFC 9112 §6.1: chunked is applied once; a second line applies it again, as
                // `chunked, chunked` on one line does (refused above).
                guard !chunked else { return .invalid(status: 400, reason: "chunked applied more than once") }
                chunked = true
            case "connection":
                connection = value.lowercased()
            case "host":
                guard !hasHost else { return .invalid(status: 400, reason: "more than one Host header") }
                hasHost = true
            case "idempotency-key":
                // Two keys name two sends: which one the client meant is not the server's guess.
                guard !hasKey else { return .invalid(status: 400, reason: "more than one Idempotency-Key header") }
                hasKey = true
            default:
                break
            }
            headers.add(name: name, value: value)
        }
        // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
        if minor >= 1 && !hasHost { return .invalid(status: 400, reason: "missing Host header") }
        if chunked && contentLength != nil {
            return .invalid(status: 400, reason: "both Content-Length and Transfer-Encoding")
        }
        let keepAlive = minor >= 1 ? connection != "close" : connection == "keep-alive"
        let bodyStart = headEnd + 4
        if chunked {
            var framing =
                progress.flatMap { $0.bodyStart == bodyStart ? $0 : nil }
                ?? Progress(bodyStart: bodyStart, next: bodyStart)
            // Moved, not shared: the chunk list grows in place instead of being copied each read.
            progress = nil
            defer { progress = framing }
            switch Self.chunkedBody(
                buffer, &framing, maxBytes: limits.maxBodyBytes, maxTrailerBytes: limits.maxHeaderBytes)
            {
            case .needMore: return .needMore
            case .invalid(let status, let reason): return .invalid(status: status, reason: reason)
            case .complete(let body, let end):
                return .complete(
                    Request(method: method, target: target, headers: headers, body: body, keepAlive: keepAlive),
                    consumed: end)
            }
        }
        let length = contentLength ?? 0
        guard length <= limits.maxBodyBytes else { return .invalid(status: 413, reason: "body too large") }
        guard count - bodyStart >= length else { return .needMore }
        let body = Array(UnsafeBufferPointer(rebasing: buffer[bodyStart..<(bodyStart + length)]))
        return .complete(
            Request(method: method, target: target, headers: headers, body: body, keepAlive: keepAlive),
            consumed: bodyStart + length)
    }

    /// The index of the `\r\n\r\n` that ends the head, searching at most `limit` bytes.
    private static func find(terminator buffer: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Int? {
        let end = min(buffer.count - 3, start + limit)
        var index = start
        while index < end {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func lines(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var lineStart = start
        var index = start
        while index < end {
            if buffer[index] == 13 && index + 1 < end + 2 && buffer[index + 1] == 10 {
                result.append(lineStart..<index)
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        result.append(lineStart..<end)
        return result
    }

    private static func requestLine(_ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> (String, String, Int)?
    {
        let parts = buffer[line].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(HeaderText.isTokenByte), !parts[1].isEmpty,
            parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { return nil }
        let version = Array(parts[2])
        guard version.count == 8, version.starts(with: Array("HTTP/1.".utf8)),
            version[7] == UInt8(ascii: "0") || version[7] == UInt8(ascii: "1")
        else { return nil }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") || target == "*" else { return nil }
        return (String(decoding: parts[0], as: UTF8.self), target, Int(version[7] - UInt8(ascii: "0")))
    }

    private static func header(_ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> (String, String)? {
        guard let colon = buffer[line].firstIndex(of: UInt8(ascii: ":")), colon > line.lowerBound else { return nil }
        let name = buffer[line.lowerBound..<colon]
        guard name.allSatisfy(HeaderText.isTokenByte) else { return nil }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, buffer[valueStart] == 32 || buffer[valueStart] == 9 { valueStart += 1 }
        while valueEnd > valueStart, buffer[valueEnd - 1] == 32 || buffer[valueEnd - 1] == 9 { valueEnd -= 1 }
        let value = buffer[valueStart..<valueEnd]
        guard value.allSatisfy({ $0 >= 32 || $0 == 9 }), !value.contains(127) else { return nil }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    enum Chunked {
        case needMore
        case invalid(Int, String)
        case complete([UInt8], end: Int)
    }
}
