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
/// until the caller is cancelled, delays and slow bodies are `Task.sleep`s.
public struct InProcessTransport: FrontmailTransport {
    public let core: FakeFrontmailCore

    public init(core: FakeFrontmailCore) {
        self.core = core
    }

    public func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        if core.isRefusing { throw URLError(.cannotConnectToHost) }
        var target = request.url.path
        if target.isEmpty { target = "/" }
        if let query = request.url.query { target += "?" + query }
        let serverRequest = ServerRequest(
            method: request.method, target: target, headers: request.headers,
            body: request.body.map { [UInt8]($0) } ?? [])
        let ticket = core.arrive(serverRequest, connection: core.nextConnectionID())
        do {
            try await Self.sleep(ticket.wait)
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
                    try await Self.sleep(Double(response.body.count) / bytesPerSecond)
                } catch {
                    core.finished(ticket, status: response.status, clientGone: true)
                    throw error
                }
            }
            core.finished(ticket, status: response.status)
            return FrontmailHTTPResponse(status: response.status, headers: response.headers, body: Data(response.body))
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

    private static func sleep(_ seconds: TimeInterval) async throws {
        guard seconds > 0 else { return }
        try await cancellableSleep(seconds: seconds)
    }
}
