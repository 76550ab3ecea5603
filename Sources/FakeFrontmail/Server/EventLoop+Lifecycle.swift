import CFakeFrontmailSystem
import Foundation
import Frontmail

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension EventLoop {
    /// The client went away: the server still finishes what it was processing.
    func peerGone(_ connection: Connection) {
        if let ticket = connection.ticket {
            switch connection.phase {
            case .waiting where options.finishesAbandonedWorkOnTime:
                // Its wake timer, keyed by the token, still comes: processed then.
                abandoned[connection.token] = ticket
            case .waiting:
                _ = core.complete(ticket, clientGone: true)
                core.finished(ticket, status: 0, clientGone: true)
            case .hanging:
                core.finished(ticket, status: 0, clientGone: true)
            case .writing, .trickling:
                core.finished(ticket, status: connection.status, clientGone: true)
            case .reading, .closed:
                break
            }
            connection.ticket = nil
        }
        close(connection)
    }

    func close(_ connection: Connection, reset: Bool = false) {
        guard connection.phase != .closed else { return }
        connection.phase = .closed
        connection.input.removeAll()
        account(connection)
        poller.remove(connection.fd)
        connections[connection.fd] = nil
        if reset {
            Socket.reset(connection.fd)
        } else {
            _ = Glibc.close(connection.fd)
        }
        counters.active.subtract(1, ordering: .relaxed)
    }

    /// Opens or closes the listener to match the refuse windows.
    func updateListener() {
        let refusing = core.isRefusing
        if refusing, listener >= 0 {
            // The port stays ours while refusing: a bound socket that does not listen refuses
            // every connection, and another server cannot be given the port and answer in our place.
            portHolder = (try? Socket.listen(host: host, port: port, reusePort: true, listening: false))?.0 ?? -1
            poller.remove(listener)
            _ = Glibc.close(listener)
            listener = -1
            for connection in connections.values where connection.phase == .reading && connection.input.isEmpty {
                close(connection)
            }
        } else if !refusing, listener < 0 {
            if let (fd, _) = try? Socket.listen(host: host, port: port, reusePort: true) {
                listener = fd
                if !listenerPaused { poller.add(fd, token: Self.listenerToken) }
            }
            releasePortHolder()
        }
    }

    private func releasePortHolder() {
        if portHolder >= 0 { _ = Glibc.close(portHolder) }
        portHolder = -1
    }

    func shutdownAll() {
        for connection in Array(connections.values) { peerGone(connection) }
        releasePortHolder()
        if listener >= 0 {
            poller.remove(listener)
            _ = Glibc.close(listener)
            listener = -1
        }
        if spareDescriptor >= 0 { _ = Glibc.close(spareDescriptor) }
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }
}
