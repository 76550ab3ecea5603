import CFakeFrontmailSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Readiness of file descriptors: epoll on Linux, poll(2) elsewhere. Level-triggered.
final class Poller {
    struct Event {
        var token: UInt64
        var readable: Bool
        var writable: Bool
        var hangup: Bool
    }

    #if canImport(Glibc)
        private let epoll: Int32
        private var buffer: [epoll_event]

        init() throws(SocketError) {
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard epoll >= 0 else { throw SocketError(operation: "epoll_create1", code: errno) }
            buffer = Array(repeating: epoll_event(), count: 256)
        }

        deinit { close(epoll) }

        private func control(_ operation: Int32, _ fd: Int32, token: UInt64, writable: Bool, readable: Bool) {
            var event = epoll_event()
            event.events =
                (readable ? EPOLLIN.rawValue : 0) | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
            event.data.u64 = token
            _ = epoll_ctl(epoll, operation, fd, &event)
        }

        func add(_ fd: Int32, token: UInt64) {
            control(EPOLL_CTL_ADD, fd, token: token, writable: false, readable: true)
        }
        /// Which readiness to report for `fd`; a hang-up is always reported.
        func update(_ fd: Int32, token: UInt64, writable: Bool, readable: Bool = true) {
            control(EPOLL_CTL_MOD, fd, token: token, writable: writable, readable: readable)
        }
        func remove(_ fd: Int32) { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil) }

        /// The ready descriptors (handled by the caller after this returns, so it may change the set).
        func wait(timeoutMilliseconds: Int32) -> [Event] {
            let count = buffer.withUnsafeMutableBufferPointer {
                epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
            }
            guard count > 0 else { return [] }
            return (0..<Int(count)).map { index in
                let event = buffer[index]
                let flags = event.events
                return Event(
                    token: event.data.u64,
                    readable: flags & (EPOLLIN.rawValue | EPOLLPRI.rawValue) != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0)
            }
        }
    #else
        private var watched: [Int32: (token: UInt64, writable: Bool, readable: Bool)] = [:]

        init() throws(SocketError) {}

        func add(_ fd: Int32, token: UInt64) { watched[fd] = (token, false, true) }
        func update(_ fd: Int32, token: UInt64, writable: Bool, readable: Bool = true) {
            watched[fd] = (token, writable, readable)
        }
        func remove(_ fd: Int32) { watched[fd] = nil }

        func wait(timeoutMilliseconds: Int32) -> [Event] {
            var fds = watched.map {
                pollfd(
                    fd: $0.key,
                    events: ($0.value.readable ? Int16(POLLIN) : 0) | ($0.value.writable ? Int16(POLLOUT) : 0),
                    revents: 0)
            }
            let count = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
            guard count > 0 else { return [] }
            return fds.compactMap { entry in
                guard entry.revents != 0, let token = watched[entry.fd]?.token else { return nil }
                return Event(
                    token: token, readable: entry.revents & Int16(POLLIN) != 0,
                    writable: entry.revents & Int16(POLLOUT) != 0,
                    hangup: entry.revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0)
            }
        }
    #endif
}

/// A failed system call.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var code: Int32
    public var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// Small wrappers over the socket calls the server needs.
enum Socket {
    /// A non-blocking listening socket on `host:port` (IPv4 or IPv6 literal); returns it and its port.
    /// A socket bound to `host:port`, listening unless `listening` is false (a socket that only
    /// holds the port: connections to it are refused, and no other socket can take the port).
    static func listen(
        host: String, port: Int, reusePort: Bool, backlog: Int32 = 1024, listening: Bool = true
    ) throws(SocketError) -> (
        Int32, Int
    ) {
        let isIPv6 = host.contains(":")
        // Close-on-exec: a child any thread of this process starts must not hold the port open
        // (after shutdown its listener would still take connections nobody accepts).
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        var bound: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(fd)
                throw SocketError(operation: "inet_pton(\(host))", code: EINVAL)
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "bind(\(host):\(port))", code: code)
        }
        guard !listening || Glibc.listen(fd, backlog) == 0, cfm_set_nonblocking(fd) == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "listen", code: code)
        }
        return (fd, boundPort(fd))
    }

    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if storage.ss_family == sa_family_t(AF_INET6) {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    static func setNoDelay(_ fd: Int32) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Closes with an RST instead of a FIN (SO_LINGER 0).
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }
}
