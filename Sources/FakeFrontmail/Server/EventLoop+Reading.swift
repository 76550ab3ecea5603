import Foundation
import Frontmail

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension EventLoop {
    /// Reads what the peer sent, then handles the requests it completes.
    func readable(_ connection: Connection, hangup: Bool = false) {
        var peerClosed = false
        while !connection.readPaused || hangup {
            let count = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                connection.lastActivity = core.now()
                if connection.phase == .hanging { continue }
                if connection.input.isEmpty, connection.phase == .reading, connection.requestStarted == nil {
                    connection.requestStarted = connection.lastActivity
                }
                connection.input.append(scratch[0..<count])
                account(connection)
                if count < scratch.count { break }
                if connection.phase != .reading && connection.input.count >= Self.pauseReadingBytes { break }
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
            if !refuseOverBudget(connection) { processInput(connection) }
        } else if connection.input.count >= Self.pauseReadingBytes {
            setReading(connection, paused: true)
        }
    }

    /// Handles the buffered requests one after another (never recursively: a response written at
    /// once comes back here through the loop below), at most `requestsPerTurn` of them per turn.
    func processInput(_ connection: Connection) {
        guard !connection.processing else { return }
        connection.processing = true
        defer { connection.processing = false }
        var handled = 0
        while connection.phase == .reading, !connection.input.isEmpty {
            guard handled < Self.requestsPerTurn else {
                timers.schedule(at: core.now(), token: connection.token, kind: TimerKind.resume.rawValue)
                return
            }
            var progress = connection.chunkProgress
            connection.chunkProgress = nil  // moved into the parse, so its chunk list is not copied
            let result = connection.input.withUnsafeBufferPointer { parser.parse($0, progress: &progress) }
            // Kept while the request is incomplete; a request that ends (or is refused) starts afresh.
            if case .needMore = result { connection.chunkProgress = progress }
            switch result {
            case .needMore:
                setReading(connection, paused: false)
                return
            case .invalid(let status, let reason):
                counters.malformed.add(1, ordering: .relaxed)
                let code = status == 413 ? "payload_too_large" : "bad_request"
                reject(connection, ServerResponse.error(status, code, "Malformed request: \(reason)."))
                return
            case .complete(let request, let consumed):
                handled += 1
                connection.input.consume(consumed)
                guard takeRequest(request, on: connection) else { return }
            }
        }
        if connection.phase == .reading { setReading(connection, paused: false) }
    }

    /// Hands a whole request to the core (or answers it here: a misdirected path, the server's
    /// identity; or closes the connection while the server refuses). False when the connection
    /// reads no more requests this turn.
    private func takeRequest(_ request: HTTPRequestParser.Request, on connection: Connection) -> Bool {
        account(connection)
        connection.requestStarted = connection.input.isEmpty ? nil : core.now()
        connection.keepAlive = request.keepAlive
        if core.isRefusing {
            close(connection)
            return false
        }
        var target = request.target
        if let prefix = routePrefix {
            guard target.hasPrefix(prefix) else {
                counters.misdirected.add(1, ordering: .relaxed)
                reject(
                    connection, ServerResponse.error(421, "misdirected_request", "This fake serves \(prefix) only."))
                return false
            }
            // Keep the slash: the rest is the API's own path.
            target.removeFirst(prefix.count - 1)
        }
        let serverRequest = ServerRequest(
            method: request.method, target: target, headers: request.headers, body: request.body)
        if serverRequest.method == "GET", serverRequest.path == FakeFrontmailCore.identityPath {
            // The server's identity, for the shards of a run: not the API, not in the ledger.
            // `shared`: whether another `serve --share-port` may join this port.
            reject(
                connection,
                ServerResponse.json(200, .object(["run_id": .string(core.runID), "shared": .bool(options.sharePort)])))
            return false
        }
        let ticket = core.arrive(serverRequest, connection: connection.id)
        connection.ticket = ticket
        if ticket.wait > 0 {
            connection.phase = .waiting
            timers.schedule(at: core.now() + ticket.wait, token: connection.token, kind: TimerKind.wake.rawValue)
        } else {
            dispatch(connection)
        }
        return true
    }

    /// Answers `response` and closes the connection after it (its unread input is dropped): a
    /// refusal, or an answer from outside the API (the server's identity).
    func reject(_ connection: Connection, _ response: ServerResponse) {
        connection.keepAlive = false
        connection.closeAfterWrite = true
        connection.input.removeAll()
        account(connection)
        connection.requestStarted = nil
        startWriting(connection, response, body: response.body, contentLength: response.body.count)
    }

    /// Keeps the server-wide count of buffered input in step with this connection's buffer.
    func account(_ connection: Connection) {
        let delta = connection.input.count - connection.accounted
        guard delta != 0 else { return }
        counters.bufferedInput.add(delta, ordering: .relaxed)
        connection.accounted = connection.input.count
    }

    /// Past the server's input budget, a connection holding a large partial request is refused
    /// with 503 (the others keep being served).
    func refuseOverBudget(_ connection: Connection) -> Bool {
        guard counters.bufferedInput.load(ordering: .relaxed) > options.inputBudget,
            connection.input.count > 64 * 1024
        else { return false }
        counters.overBudget.add(1, ordering: .relaxed)
        var response = ServerResponse.error(503, "service_unavailable", "The server's input budget is spent.")
        response.setRetryAfter("1", meaning: .seconds(1))
        reject(connection, response)
        return true
    }

    func setReading(_ connection: Connection, paused: Bool) {
        guard connection.readPaused != paused, connection.phase != .closed else { return }
        connection.readPaused = paused
        poller.update(connection.fd, token: connection.token, writable: connection.wantsWrite, readable: !paused)
    }

    func scheduleSweep() {
        guard !sweepScheduled, !connections.isEmpty else { return }
        sweepScheduled = true
        let interval = min(1, max(0.01, min(options.headerTimeout, options.idleTimeout) / 4))
        timers.schedule(at: core.now() + interval, token: 0, kind: TimerKind.sweep.rawValue)
    }

    /// Closes connections that wait for a request too long: no byte for `idleTimeout`, or a head not
    /// complete `headerTimeout` after its first byte (408). Connections the server holds on purpose
    /// (waiting, hanging, trickling) are not touched.
    func sweepTimeouts() {
        let now = core.now()
        for connection in Array(connections.values) where connection.phase == .reading {
            if let started = connection.requestStarted, now - started > options.headerTimeout,
                !Self.hasCompleteHead(connection.input, limit: options.limits.maxHeaderBytes)
            {
                counters.timedOut.add(1, ordering: .relaxed)
                reject(connection, ServerResponse.error(408, "request_timeout", "The request head took too long."))
            } else if now - connection.lastActivity > options.idleTimeout {
                counters.timedOut.add(1, ordering: .relaxed)
                close(connection)
            }
        }
        scheduleSweep()
    }

    static func hasCompleteHead(_ input: InputBuffer, limit: Int) -> Bool {
        input.withUnsafeBufferPointer { bytes in
            var index = 0
            let end = min(bytes.count, limit + 4) - 3
            while index < end {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    return true
                }
                index += 1
            }
            return false
        }
    }
}
