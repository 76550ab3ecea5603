import Foundation
import Synchronization
import Testing

@testable import Frontmail

/// The script of a `ScriptedTransport`, behind the interface the client's deadline ends an exchange
/// through without cancelling a Task (as `URLSessionTransport` does).
final class InterruptibleScript: InterruptibleTransport {
    let script: ScriptedTransport
    private let interruptCount = Mutex(0)

    init(_ script: ScriptedTransport) { self.script = script }

    /// Exchanges the client's deadline ended.
    var interrupts: Int { interruptCount.withLock { $0 } }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        try await script.send(request)
    }

    func send(
        _ request: FrontmailHTTPRequest, interruptible: (_ interrupt: @escaping @Sendable () -> Void) -> Void
    ) async throws -> FrontmailHTTPResponse {
        let script = self.script
        let exchange = Task { try await script.send(request) }
        interruptible {
            self.interruptCount.withLock { $0 += 1 }
            exchange.cancel()
        }
        return try await withTaskCancellationHandler {
            try await exchange.value
        } onCancel: {
            exchange.cancel()
        }
    }
}

@Suite("the deadline of a transport it can interrupt")
struct InterruptibleDeadlineTests {
    static func client(_ transport: InterruptibleScript, clock: ManualClock, timeout: TimeInterval) throws -> Frontmail
    {
        try Frontmail(
            publicKey: TestClient.key, apiURL: TestClient.base, retry: .default, timeout: timeout,
            transport: transport, environment: SendEnvironment(clock: clock, random: { 0 }))
    }

    @Test("a hang is interrupted at the deadline, is a timeout and is retried; nothing is left in the timer")
    func hangInterrupted() async throws {
        let clock = ManualClock()
        let transport = InterruptibleScript(
            ScriptedTransport([.hang(advancing: 0.4), TestClient.accepted], clock: clock))
        let client = try Self.client(transport, clock: clock, timeout: 0.4)
        let result = try await client.send(templateID: "t")
        #expect(result.messageID == "msg_1")
        #expect(transport.script.count == 2)
        #expect(transport.interrupts == 1)
        #expect(clock.pendingDeadlines == 0)
    }

    @Test("not before its time: the exchange runs until the clock reaches the deadline")
    func notBeforeItsTime() async throws {
        let clock = ManualClock()
        let transport = InterruptibleScript(ScriptedTransport([.hang(advancing: 0)], clock: clock))
        let client = try Frontmail(
            publicKey: TestClient.key, apiURL: TestClient.base, retry: .disabled, timeout: 0.3, transport: transport,
            environment: SendEnvironment(clock: clock))
        let send = Task { await frontmailError { try await client.send(templateID: "t") } }
        try await waitUntil { transport.script.count == 1 && clock.pendingDeadlines == 1 }
        clock.advance(by: 0.2999)
        #expect(transport.interrupts == 0)
        clock.advance(by: 0.0001)
        let error = await send.value
        #expect(error?.code == .timeout)
        #expect(transport.interrupts == 1)
    }

    @Test("answered attempts take their deadlines out; a cancelled caller is aborted, not timed out")
    func answeredAndCancelled() async throws {
        let clock = ManualClock()
        let answering = InterruptibleScript(ScriptedTransport([TestClient.accepted], clock: clock))
        let client = try Self.client(answering, clock: clock, timeout: 0.4)
        for _ in 0..<3 { _ = try await client.send(templateID: "t") }
        #expect(clock.pendingDeadlines == 0)
        #expect(answering.interrupts == 0)

        let hanging = InterruptibleScript(ScriptedTransport([.hang(advancing: 0)], clock: clock))
        let cancelled = try Self.client(hanging, clock: clock, timeout: 0.4)
        let send = Task { await frontmailError { try await cancelled.send(templateID: "t") } }
        try await waitUntil { hanging.script.count == 1 && clock.pendingDeadlines == 1 }
        send.cancel()
        let error = await send.value
        #expect(error?.code == .aborted)
        #expect(hanging.interrupts == 0)
        #expect(clock.pendingDeadlines == 0)
        #expect(hanging.script.count == 1)
    }
}
