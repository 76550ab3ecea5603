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
    /// Connections accepted and closed at once because the process was out of file descriptors.
    let refused = Atomic<Int>(0)
    /// Connections closed by the header or idle timeout.
    let timedOut = Atomic<Int>(0)
    /// Requests refused because the server's input budget was spent.
    let overBudget = Atomic<Int>(0)
    /// Bytes read and not yet parsed, across every connection (the input budget's measure).
    let bufferedInput = Atomic<Int>(0)
    /// Requests without the server's path prefix.
    let misdirected = Atomic<Int>(0)
}

/// One thread's event loop: its own listener (SO_REUSEPORT), poller, timers and connections.
///
/// Work per wake-up is bounded: at most `requestsPerTurn` pipelined requests of one connection are
/// handled before the loop turns, and a connection whose buffered requests wait for an answer stops
/// being read until they are answered.
///
/// `@unchecked Sendable`: after `start()` every mutable field is touched only by the loop's own
/// thread; other threads only call `stop()`, which writes to a pipe.
final class EventLoop: @unchecked Sendable {
    let core: FakeFrontmailCore
    let parser: HTTPRequestParser
    let options: FakeFrontmailServer.Options
    /// `options.pathPrefix` with its closing slash, made once (every request is checked against it).
    let routePrefix: String?
    let counters: ServerCounters
    let host: String
    let port: Int
    var listener: Int32
    /// During a refuse window: a bound, non-listening socket that keeps the port ours.
    var portHolder: Int32 = -1
    /// A descriptor held in reserve: closed to accept (and at once close) a connection when the
    /// process runs out of descriptors, so the listener's backlog drains instead of spinning.
    var spareDescriptor: Int32
    var listenerPaused = false
    let poller: Poller
    var timers = TimerHeap()
    var connections: [Int32: Connection] = [:]
    /// Delayed requests whose clients left, by their connection's token, each processed when its
    /// wake timer fires (`Options.finishesAbandonedWorkOnTime`).
    var abandoned: [UInt64: Ticket] = [:]
    var nextToken: UInt64 = 1
    var sweepScheduled = false
    let wakeRead: Int32
    let wakeWrite: Int32
    let stopped = Mutex(false)
    let finished = DispatchSemaphore(value: 0)
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    static let listenerToken: UInt64 = 0
    static let wakeToken: UInt64 = .max
    /// Pipelined requests of one connection handled before the loop serves the others.
    static let requestsPerTurn = 64
    /// Buffered input beyond which a connection with requests in progress stops being read.
    static let pauseReadingBytes = 256 * 1024

    enum TimerKind: UInt8 {
        case wake = 1
        case trickle, refuseEdge
        /// Continue a connection's pipelined requests on the next turn.
        case resume
        /// Close connections past the header or idle timeout.
        case sweep
        /// Listen again after running out of descriptors.
        case listenAgain
    }

    init(
        core: FakeFrontmailCore, listener: Int32, host: String, port: Int, options: FakeFrontmailServer.Options,
        counters: ServerCounters
    )
        throws(SocketError)
    {
        self.core = core
        self.parser = HTTPRequestParser(limits: options.limits)
        self.options = options
        self.routePrefix = options.pathPrefix.map { $0 + "/" }
        self.counters = counters
        self.listener = listener
        self.host = host
        self.port = port
        self.poller = try Poller()
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw SocketError(operation: "pipe", code: errno) }
        for end in pipeFDs { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        _ = cfm_set_nonblocking(wakeRead)
        poller.add(listener, token: Self.listenerToken)
        poller.add(wakeRead, token: Self.wakeToken)
        for window in core.refuseWindows {
            timers.schedule(at: window.from, token: 0, kind: TimerKind.refuseEdge.rawValue)
            if window.to.isFinite { timers.schedule(at: window.to, token: 0, kind: TimerKind.refuseEdge.rawValue) }
        }
        // A window open from the start is closed before anyone learns the port: a client that
        // connects before the loop's first turn must be refused, not queued on the listener.
        updateListener()
    }

    /// Starts the loop's thread and returns once the thread carries its name, so whoever reads
    /// the process's threads right after the server is made finds the server's among them.
    func start() {
        let named = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            // Named where the system sees it (Foundation's name is not the thread's on Linux), so
            // the experiments can tell the server's CPU time from the client's.
            _ = cfm_set_thread_name(FakeFrontmailServer.loopThreadName)
            named.signal()
            run()
        }
        thread.name = FakeFrontmailServer.loopThreadName
        thread.start()
        named.wait()
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
            if event.readable || event.hangup { readable(connection, hangup: event.hangup) }
            if event.writable, connection.phase != .closed { flush(connection) }
        }
    }

    func acceptAll() {
        while listener >= 0, !listenerPaused {
            let fd = acceptConnection()
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE { outOfDescriptors() }
                return
            }
            Socket.setNoDelay(fd)
            let token = (nextToken << 32) | UInt64(UInt32(bitPattern: fd))
            nextToken += 1
            let connection = Connection(fd: fd, token: token, id: core.nextConnectionID(), now: core.now())
            connections[fd] = connection
            poller.add(fd, token: token)
            counters.opened.add(1, ordering: .relaxed)
            counters.active.add(1, ordering: .relaxed)
            scheduleSweep()
        }
    }

    func acceptConnection() -> Int32 {
        options.accept?(listener) ?? cfm_accept_nonblocking(listener)
    }

    /// `accept` failed for lack of descriptors: refuse the waiting connection with the spare one
    /// (it is accepted and closed, so the level-triggered listener does not spin), or pause the
    /// listener for a moment when there is no spare.
    func outOfDescriptors() {
        if spareDescriptor >= 0 {
            _ = Glibc.close(spareDescriptor)
            let fd = acceptConnection()
            if fd >= 0 {
                counters.refused.add(1, ordering: .relaxed)
                _ = Glibc.close(fd)
            }
            spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if spareDescriptor >= 0 { return }
        }
        listenerPaused = true
        poller.remove(listener)
        timers.schedule(at: core.now() + 0.05, token: 0, kind: TimerKind.listenAgain.rawValue)
    }

    func fire(_ timer: TimerHeap.Entry) {
        switch TimerKind(rawValue: timer.kind) {
        case .refuseEdge?:
            updateListener()
            return
        case .sweep?:
            sweepScheduled = false
            sweepTimeouts()
            return
        case .listenAgain?:
            if spareDescriptor < 0 { spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
            listenerPaused = false
            if listener >= 0 { poller.add(listener, token: Self.listenerToken) }
            return
        default:
            break
        }
        if TimerKind(rawValue: timer.kind) == .wake, let ticket = abandoned.removeValue(forKey: timer.token) {
            _ = core.complete(ticket, clientGone: true)
            core.finished(ticket, status: 0, clientGone: true)
            return
        }
        let fd = Int32(truncatingIfNeeded: timer.token & 0xFFFF_FFFF)
        guard let connection = connections[fd], connection.token == timer.token else { return }
        switch TimerKind(rawValue: timer.kind) {
        case .wake? where connection.phase == .waiting: dispatch(connection)
        case .trickle? where connection.phase == .trickling: trickle(connection)
        case .resume? where connection.phase == .reading: processInput(connection)
        default: break
        }
    }
}
