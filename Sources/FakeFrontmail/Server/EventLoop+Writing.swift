import Foundation
import Frontmail

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension EventLoop {
    /// The request's wait is over: the core completes it and says what to send.
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
            connection.trickleChunk = Int(min(Double(response.body.count), max(1, bytesPerSecond * 0.01).rounded()))
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
            account(connection)
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

    /// Writes what the socket takes; when a response is out, the connection reads its next request.
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
                    poller.update(
                        connection.fd, token: connection.token, writable: true, readable: !connection.readPaused)
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
            poller.update(connection.fd, token: connection.token, writable: false, readable: !connection.readPaused)
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
            connection.lastActivity = core.now()
            // Inside `processInput` this returns at once and its loop takes the next request.
            processInput(connection)
        }
    }

    /// The next piece of a trickled body.
    func trickle(_ connection: Connection) {
        let end = min(connection.trickleBody.count, connection.trickleOffset + connection.trickleChunk)
        connection.output.append(contentsOf: connection.trickleBody[connection.trickleOffset..<end])
        connection.trickleOffset = end
        if end == connection.trickleBody.count {
            connection.phase = .writing
        } else {
            timers.schedule(
                at: core.now() + connection.trickleInterval, token: connection.token, kind: TimerKind.trickle.rawValue)
        }
        flush(connection)
    }
}
