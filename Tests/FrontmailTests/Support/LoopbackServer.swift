import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (port 0) for end-to-end tests: one thread per connection,
/// keep-alive, answers chosen per request by a handler. Always call `stop()` (use `with`).
final class LoopbackServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: Data
        /// 0-based across the server's life.
        var index: Int
    }

    enum Action: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: String = "")
        /// Waits before answering (headers included).
        case delay(TimeInterval, status: Int, body: String)
        /// Sends the headers at once, then the body one byte every `interval` seconds.
        case slowBody(status: Int, body: String, interval: TimeInterval)
        /// Closes the connection without answering.
        case close
        /// Never answers; waits until the client goes away.
        case hold
    }

    private let listener: Int32
    let port: Int
    private let handler: @Sendable (Request) -> Action
    private let state = Mutex(State())

    private struct State {
        var requests = 0
        var connections: Set<Int32> = []
        var stopping = false
        var heldClosed = 0
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requestCount: Int { state.withLock { $0.requests } }
    /// Held requests whose client closed the connection.
    var heldRequestsClosedByClient: Int { state.withLock { $0.heldClosed } }

    init(handler: @escaping @Sendable (Request) -> Action) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Runs `body` with a started server and always stops it.
    static func with<T>(
        handler: @escaping @Sendable (Request) -> Action, run body: (LoopbackServer) async throws -> T
    ) async throws -> T {
        let server = try LoopbackServer(handler: handler)
        defer { server.stop() }
        return try await body(server)
    }

    func stop() {
        let open = state.withLock { state -> Set<Int32> in
            state.stopping = true
            return state.connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopping {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { _ = $0.connections.remove(fd) }
            close(fd)
        }
        var buffer = [UInt8]()
        while !isStopping {
            guard let request = readRequest(fd, &buffer) else { return }
            switch handler(request) {
            case .respond(let status, let headers, let body):
                guard write(fd, head(status, headers, body.utf8.count) + Array(body.utf8)) else { return }
            case .delay(let seconds, let status, let body):
                Thread.sleep(forTimeInterval: seconds)
                guard write(fd, head(status, [:], body.utf8.count) + Array(body.utf8)) else { return }
            case .slowBody(let status, let body, let interval):
                guard write(fd, head(status, [:], body.utf8.count)) else { return }
                for byte in body.utf8 {
                    Thread.sleep(forTimeInterval: interval)
                    guard !isStopping, write(fd, [byte]) else { return }
                }
            case .close:
                return
            case .hold:
                var scratch = [UInt8](repeating: 0, count: 512)
                while true {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    if count <= 0 { break }
                }
                if !isStopping { state.withLock { $0.heldClosed += 1 } }
                return
            }
        }
    }

    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 16_384)
        func fill() -> Bool {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: terminator)?.lowerBound
            if headEnd == nil, !fill() { return nil }
        }
        guard let headEnd else { return nil }
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headEnd + terminator.count
        while buffer.count < bodyStart + length {
            if !fill() { return nil }
        }
        let body = Data(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        let index = state.withLock { state -> Int in
            state.requests += 1
            return state.requests - 1
        }
        return Request(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body, index: index)
    }

    private func head(_ status: Int, _ headers: [String: String], _ length: Int) -> [UInt8] {
        var text = "HTTP/1.1 \(status) Status\r\nContent-Length: \(length)\r\n"
        if headers["Content-Type"] == nil { text += "Content-Type: application/json\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }
}

/// A port on 127.0.0.1 that is bound but not listening, so connections to it are refused.
struct ReservedPort {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0 else {
            closeSocket(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = size
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        closeSocket(fd)
    }
}

private func closeSocket(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}
