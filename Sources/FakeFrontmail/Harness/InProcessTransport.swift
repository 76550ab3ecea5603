import Foundation
import Frontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `FrontmailTransport` that hands requests straight to a `FakeFrontmailCore`: no sockets, so one
/// machine can drive tens of thousands of concurrent logical sends through the SDK's retry logic.
///
/// Socket faults become the matching transport errors: reset, close and truncate throw
/// `URLError(.networkConnectionLost)`, refuse throws `URLError(.cannotConnectToHost)`, a hang waits
/// until the caller is cancelled, delays and slow bodies are sleeps on the core's clock.
public struct InProcessTransport: FrontmailTransport {
    public let core: FakeFrontmailCore

    public init(core: FakeFrontmailCore) {
        self.core = core
    }

    public func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        if core.isRefusing { throw URLError(.cannotConnectToHost) }
        let serverRequest = ServerRequest(
            method: request.method, target: Self.target(of: request.url), headers: request.headers,
            body: request.body.map { [UInt8]($0) } ?? [])
        let ticket = core.arrive(serverRequest, connection: core.nextConnectionID())
        do {
            try await sleep(ticket.wait)
        } catch {
            _ = core.complete(ticket, clientGone: true)
            core.finished(ticket, status: 0, clientGone: true)
            throw error
        }
        guard let disposition = core.complete(ticket) else {
            throw URLError(.networkConnectionLost)
        }
        switch disposition {
        case .respond(let response, let bytesPerSecond):
            if let bytesPerSecond {
                do {
                    try await sleep(Double(response.body.count) / bytesPerSecond)
                } catch {
                    core.finished(ticket, status: response.status, clientGone: true)
                    throw error
                }
            }
            core.finished(ticket, status: response.status)
            return FrontmailHTTPResponse(
                status: response.status, headers: response.headers, body: BodySpec.data(of: response.body))
        case .truncate(let response, _):
            core.finished(ticket, status: response.status)
            throw URLError(.networkConnectionLost)
        case .reset, .close:
            core.finished(ticket, status: 0)
            throw URLError(.networkConnectionLost)
        case .hang:
            do {
                try await waitUntilCancelled()
            } catch {
                core.finished(ticket, status: 0, clientGone: true)
                throw error
            }
        }
    }

    /// The request target a socket server would read (path and query, as written in the URL):
    /// taken from the URL's text, which costs a fraction of `URL.path` (that decoded and re-split
    /// the URL on every send).
    static func target(of url: URL) -> String {
        let text = url.absoluteString
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[colon...].starts(with: "://".utf8)
        else { return fallbackTarget(url) }
        let authority = bytes.index(colon, offsetBy: 3)
        let start =
            bytes[authority...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }
            ?? bytes.endIndex
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let target = String(text[start..<end])
        if target.isEmpty { return "/" }
        return target.utf8.first == UInt8(ascii: "?") ? "/" + target : target
    }

    private static func fallbackTarget(_ url: URL) -> String {
        var target = url.path
        if target.isEmpty { target = "/" }
        if let query = url.query { target += "?" + query }
        return target
    }

    /// A wait on the core's clock: the system's (its shared timer releases a cancelled wait at
    /// once) or a simulation's. A wait of no time is no wait at all, even for a cancelled exchange:
    /// the fake goes on as a server would (unlike the client's schedulers, whose zero-length sleep
    /// still throws when cancelled).
    private func sleep(_ seconds: TimeInterval) async throws {
        guard seconds > 0 else { return }
        try await core.clock.sleep(seconds: seconds)
    }
}
