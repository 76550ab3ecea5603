import CFakeFrontmailSystem
import Foundation
import Frontmail
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counters shared by a server's loops.
final class ServerCounters: Sendable {
    let opened = Atomic<Int>(0)
    let active = Atomic<Int>(0)
    let served = Atomic<Int>(0)
    let malformed = Atomic<Int>(0)
}

/// One thread's event loop: its own listener (SO_REUSEPORT), poller, timers and connections.
///
/// `@unchecked Sendable`: after `start()` every mutable field is touched only by the loop's own
/// thread; other threads only call `stop()`, which writes to a pipe.
final class EventLoop: @unchecked Sendable {
    let core: FakeFrontmailCore
    let parser: HTTPRequestParser
    let counters: ServerCounters
    let host: String
    let port: Int
    var listener: Int32
    let poller: Poller
    var timers = TimerHeap()
    var connections: [Int32: Connection] = [:]
    var nextToken: UInt64 = 1
    let wakeRead: Int32
    let wakeWrite: Int32
    let stopped = Mutex(false)
    let finished = DispatchSemaphore(value: 0)
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    static let listenerToken: UInt64 = 0
    static let wakeToken: UInt64 = .max
    enum TimerKind: UInt8 {
        case wake = 1
        case trickle, refuseEdge
    }

    init(
        core: FakeFrontmailCore, listener: Int32, host: String, port: Int, limits: HTTPRequestParser.Limits,
        counters: ServerCounters
    )
        throws(SocketError)
    {
        self.core = core
        self.parser = HTTPRequestParser(limits: limits)
        self.counters = counters
        self.listener = listener
        self.host = host
        self.port = port
        self.poller = try Poller()
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw SocketError(operation: "pipe", code: errno) }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        _ = cfm_set_nonblocking(wakeRead)
        poller.add(listener, token: Self.listenerToken)
        poller.add(wakeRead, token: Self.wakeToken)
        for window in core.refuseWindows {
            timers.schedule(at: window.from, token: 0, kind: TimerKind.refuseEdge.rawValue)
            if window.to.isFinite { timers.schedule(at: window.to, token: 0, kind: TimerKind.refuseEdge.rawValue) }
        }
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "fake-frontmail-loop"
        thread.start()
    }

    /// Asks the loop to close everything and waits until it has.
    func stop() {
        let first = stopped.withLock { state -> Bool in
            defer { state = true }
            return !state
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        finished.wait()
    }

    var isStopping: Bool { stopped.withLock { $0 } }

    func run() {
        updateListener()
        while !isStopping {
            let now = core.now()
            while let timer = timers.popDue(now) { fire(timer) }
            var timeout: Int32 = -1
            if let next = timers.earliest {
                timeout = Int32(min(max(0, (next - core.now()) * 1000).rounded(.up), 60_000))
            }
            for event in poller.wait(timeoutMilliseconds: timeout) { handle(event) }
        }
        shutdownAll()
        finished.signal()
    }

    func handle(_ event: Poller.Event) {
        switch event.token {
        case Self.wakeToken:
            var byte: UInt8 = 0
            while read(wakeRead, &byte, 1) > 0 {}
        case Self.listenerToken:
            acceptAll()
        default:
            let fd = Int32(truncatingIfNeeded: event.token & 0xFFFF_FFFF)
            guard let connection = connections[fd], connection.token == event.token else { return }
            if event.readable || event.hangup { readable(connection) }
            if event.writable, connection.phase != .closed { flush(connection) }
        }
    }

    func acceptAll() {
        while listener >= 0 {
            let fd = cfm_accept_nonblocking(listener)
            guard fd >= 0 else { return }
            Socket.setNoDelay(fd)
            let token = (nextToken << 32) | UInt64(UInt32(bitPattern: fd))
            nextToken += 1
            let connection = Connection(fd: fd, token: token, id: core.nextConnectionID())
            connections[fd] = connection
            poller.add(fd, token: token)
            counters.opened.add(1, ordering: .relaxed)
            counters.active.add(1, ordering: .relaxed)
        }
    }

    func readable(_ connection: Connection) {
        var peerClosed = false
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if connection.phase == .hanging { continue }
                connection.input.append(contentsOf: scratch[0..<count])
                if count < scratch.count { break }
            } else if count == 0 {
                peerClosed = true
                break
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { peerClosed = true }
                break
            }
        }
        if peerClosed {
            peerGone(connection)
        } else if connection.phase == .reading {
            processInput(connection)
        }
    }

    func processInput(_ connection: Connection) {
        while connection.phase == .reading, !connection.input.isEmpty {
            let result = connection.input.withUnsafeBufferPointer { parser.parse($0) }
            switch result {
            case .needMore:
                return
            case .invalid(let status, let reason):
                counters.malformed.add(1, ordering: .relaxed)
                let code = status == 413 ? "payload_too_large" : "bad_request"
                let response = ServerResponse.error(status, code, "Malformed request: \(reason).")
                connection.keepAlive = false
                connection.closeAfterWrite = true
                connection.input.removeAll()
                startWriting(connection, response, body: response.body, contentLength: response.body.count)
                return
            case .complete(let request, let consumed):
                connection.input.removeFirst(consumed)
                connection.keepAlive = request.keepAlive
                if core.isRefusing {
                    close(connection)
                    return
                }
                let serverRequest = ServerRequest(
                    method: request.method, target: request.target, headers: request.headers, body: request.body)
                let ticket = core.arrive(serverRequest, connection: connection.id)
                connection.ticket = ticket
                if ticket.wait > 0 {
                    connection.phase = .waiting
                    timers.schedule(
                        at: core.now() + ticket.wait, token: connection.token, kind: TimerKind.wake.rawValue)
                } else {
                    dispatch(connection)
                }
            }
        }
    }

    func dispatch(_ connection: Connection) {
        guard let ticket = connection.ticket, let disposition = core.complete(ticket) else { return }
        switch disposition {
        case .respond(let response, let bytesPerSecond):
            guard let bytesPerSecond else {
                startWriting(connection, response, body: response.body, contentLength: response.body.count)
                return
            }
            connection.status = response.status
            connection.output = Connection.serialize(
                head: response, contentLength: response.body.count, keepAlive: connection.keepAlive)
            connection.outputOffset = 0
            connection.trickleBody = response.body
            connection.trickleOffset = 0
            connection.trickleInterval = max(0.01, 1 / bytesPerSecond)
            connection.trickleChunk = max(1, Int((bytesPerSecond * connection.trickleInterval).rounded()))
            connection.phase = .trickling
            flush(connection)
            if connection.phase == .trickling {
                timers.schedule(
                    at: core.now() + connection.trickleInterval, token: connection.token,
                    kind: TimerKind.trickle.rawValue)
            }
        case .truncate(let response, let keepBytes):
            connection.closeAfterWrite = true
            startWriting(
                connection, response, body: Array(response.body.prefix(keepBytes)), contentLength: response.body.count)
        case .hang:
            connection.phase = .hanging
            connection.input.removeAll()
        case .reset:
            core.finished(ticket, status: 0)
            connection.ticket = nil
            close(connection, reset: true)
        case .close:
            core.finished(ticket, status: 0)
            connection.ticket = nil
            close(connection)
        }
    }

    func startWriting(_ connection: Connection, _ response: ServerResponse, body: [UInt8], contentLength: Int) {
        connection.status = response.status
        connection.output = Connection.serialize(
            head: response, contentLength: contentLength, keepAlive: connection.keepAlive)
        connection.output.append(contentsOf: body)
        connection.outputOffset = 0
        connection.phase = .writing
        flush(connection)
    }

    func flush(_ connection: Connection) {
        while connection.outputOffset < connection.output.count {
            let sent = connection.output.withUnsafeBytes { bytes in
                send(
                    connection.fd, bytes.baseAddress! + connection.outputOffset, bytes.count - connection.outputOffset,
                    Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                connection.outputOffset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if !connection.wantsWrite {
                    connection.wantsWrite = true
                    poller.update(connection.fd, token: connection.token, writable: true)
                }
                return
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                peerGone(connection)
                return
            }
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.outputOffset = 0
        if connection.wantsWrite {
            connection.wantsWrite = false
            poller.update(connection.fd, token: connection.token, writable: false)
        }
        guard connection.phase == .writing else { return }
        if let ticket = connection.ticket {
            core.finished(ticket, status: connection.status)
            connection.ticket = nil
        }
        counters.served.add(1, ordering: .relaxed)
        if connection.closeAfterWrite || !connection.keepAlive {
            close(connection)
        } else {
            connection.phase = .reading
            processInput(connection)
        }
    }

    func fire(_ timer: TimerHeap.Entry) {
        if timer.kind == TimerKind.refuseEdge.rawValue {
            updateListener()
            return
        }
        let fd = Int32(truncatingIfNeeded: timer.token & 0xFFFF_FFFF)
        guard let connection = connections[fd], connection.token == timer.token else { return }
        if timer.kind == TimerKind.wake.rawValue, connection.phase == .waiting {
            dispatch(connection)
        } else if timer.kind == TimerKind.trickle.rawValue, connection.phase == .trickling {
            let end = min(connection.trickleBody.count, connection.trickleOffset + connection.trickleChunk)
            connection.output.append(contentsOf: connection.trickleBody[connection.trickleOffset..<end])
            connection.trickleOffset = end
            if end == connection.trickleBody.count {
                connection.phase = .writing
            } else {
                timers.schedule(
                    at: core.now() + connection.trickleInterval, token: connection.token,
                    kind: TimerKind.trickle.rawValue)
            }
            flush(connection)
        }
    }
}
