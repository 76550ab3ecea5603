import Foundation
import Testing

@testable import Frontmail

@Suite("send: cancellation is aborted, immediate, and never followed by another attempt (§4.5, §7.17)")
struct CancellationTests {
    @Test("cancelled before the first attempt: aborted, no request")
    func beforeFirstAttempt() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        let send = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await frontmailError { try await client.send(templateID: "t") }
        }
        let error = await send.value
        #expect(error?.code == .aborted)
        #expect(error?.isCancelled == true)
        #expect(error?.status == nil)
        #expect(transport.count == 0)
    }

    @Test("cancelled while the request is in flight: aborted, exactly one request")
    func duringRequest() async throws {
        let transport = ScriptedTransport([.hang(advancing: 0), TestClient.accepted])
        let client = try Frontmail(publicKey: TestClient.key, apiURL: TestClient.base, transport: transport)
        let send = Task { await frontmailError { try await client.send(templateID: "t") } }
        try await waitUntil { transport.count == 1 }
        send.cancel()
        let error = await send.value
        #expect(error?.code == .aborted)
        #expect(transport.count == 1)
        #expect(transport.cancellations == 1)
    }

    @Test("cancelled during a backoff wait: aborted, no further attempt", .timeLimit(.minutes(10)))
    func duringBackoff() async throws {
        let recorder = EventRecorder()
        // The real clock's wait, an hour long: the cancellation must end it however late this
        // task gets a thread (a 30 s wait once ended first under ThreadSanitizer on a busy runner).
        let transport = ScriptedTransport([
            .respond(status: 503, headers: ["Retry-After": "3600"]), TestClient.accepted,
        ])
        let client = try Frontmail(
            publicKey: TestClient.key, apiURL: TestClient.base, retry: RetryPolicy(maxRetryAfter: 3600),
            transport: transport, environment: SendEnvironment(observer: recorder))
        let send = Task { await frontmailError { try await client.send(templateID: "t") } }
        try await waitUntil { !recorder.backoffs.isEmpty }
        send.cancel()
        let error = await send.value
        #expect(error?.code == .aborted)
        #expect(transport.count == 1)
    }

    @Test("cancelled during a status request: aborted")
    func duringStatus() async throws {
        let transport = ScriptedTransport([.hang(advancing: 0)])
        let client = try Frontmail(publicKey: TestClient.key, apiURL: TestClient.base, transport: transport)
        let read = Task { await frontmailError { _ = try await client.status(messageID: "m", statusToken: "t") } }
        try await waitUntil { transport.count == 1 }
        read.cancel()
        #expect(await read.value?.code == .aborted)
    }

    @Test("a transport's own CancellationError while the caller is not cancelled is not aborted")
    func spuriousCancellationIsNotAborted() async throws {
        let transport = ScriptedTransport([.fail(CancellationError()), TestClient.accepted])
        let result = try await TestClient.make(transport).send(templateID: "t")
        #expect(result.messageID == "msg_1")
        #expect(transport.count == 2)
    }
}
