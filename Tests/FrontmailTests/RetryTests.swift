import Foundation
import Testing

@testable import Frontmail

@Suite("send: retries, backoff, Retry-After, timeouts (wire contract §4, §7.7-7.16)")
struct RetryTests {
    @Test(
        "a 2xx without message_id is invalid_response after one request",
        arguments: ["", "{}", "<html>", #"{"message_id":""}"#])
    func malformedSuccessIsNotRetried(body: String) async throws {
        let transport = ScriptedTransport([.respond(status: 202, body: body)])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(error?.code == .invalidResponse)
        #expect(error?.status == nil)
        #expect(transport.count == 1)
    }

    @Test("a 200 instead of 202 is a success")
    func anyTwoHundredIsSuccess() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"message_id":"m","status":"queued"}"#)])
        let result = try await TestClient.make(transport).send(templateID: "t")
        #expect(result.messageID == "m")
        #expect(result.statusToken == "")
    }

    @Test("network error, 503, 502, then 202: success after 4 requests with one key")
    func recoversAfterThreeFailures() async throws {
        let transport = ScriptedTransport([
            .fail(URLError(.cannotConnectToHost)), .respond(status: 503), .respond(status: 502), TestClient.accepted,
        ])
        let result = try await TestClient.make(transport).send(templateID: "t")
        #expect(result.messageID == "msg_1")
        #expect(transport.count == 4)
        #expect(Set(transport.requests.map { $0.request.headers["Idempotency-Key"] }).count == 1)
    }

    @Test("r = 0.5, base 0.1 s, max 0.3 s, server always 500: waits 0.05, 0.1, 0.15 s, then the error")
    func fullJitterWaits() async throws {
        let clock = ManualClock()
        let recorder = EventRecorder()
        let transport = ScriptedTransport([.respond(status: 500)], clock: clock)
        let client = try TestClient.make(
            transport, clock: clock, retry: RetryPolicy(maxRetries: 3, baseDelay: 0.1, maxDelay: 0.3),
            observer: recorder)
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(error?.code == .internalError)
        #expect(error?.status == 500)
        #expect(transport.count == 4)
        #expect(clock.backoffSleeps.map { ($0 * 1000).rounded() } == [50, 100, 150])
        #expect(transport.requests.map { ($0.at * 1000).rounded() } == [0, 50, 150, 300])
        #expect(recorder.backoffs.map(\.cause) == [.jitter(cap: 0.1), .jitter(cap: 0.2), .jitter(cap: 0.3)])
    }

    @Test("the last error is the one thrown")
    func lastErrorWins() async throws {
        let transport = ScriptedTransport([
            .respond(status: 503), .respond(status: 502), .respond(status: 500),
            .respond(status: 429, body: TestClient.errorBody("rate_limited")),
        ])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(error?.code == .rateLimited)
        #expect(transport.count == 4)
    }

    @Test("a network that keeps failing: 4 requests, then network_error with status nil")
    func networkKeepsFailing() async throws {
        let transport = ScriptedTransport([.fail(URLError(.networkConnectionLost))])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(error?.code == .networkError)
        #expect(error?.status == nil)
        #expect(error?.isNetwork == true)
        #expect(transport.count == 4)
    }

    @Test("429 with Retry-After: 2: the second request goes out at 2 s, not before")
    func retryAfterIsWaitedExactly() async throws {
        let clock = ManualClock()
        let recorder = EventRecorder()
        let transport = ScriptedTransport(
            [.respond(status: 429, headers: ["Retry-After": "2"]), TestClient.accepted], clock: clock)
        let client = try TestClient.make(transport, clock: clock, draw: 0.999, observer: recorder)
        _ = try await client.send(templateID: "t")
        #expect(transport.requests.map(\.at) == [0, 2])
        #expect(recorder.backoffs.map(\.cause) == [.retryAfter(2)])
    }

    @Test(
        "a signed Retry-After is not delay-seconds (RFC 9110 §10.2.3): the jittered backoff applies",
        arguments: ["-3", "+1", "-0"])
    func signedRetryAfter(header: String) async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [.respond(status: 503, headers: ["Retry-After": header]), TestClient.accepted], clock: clock)
        let client = try TestClient.make(
            transport, clock: clock, retry: RetryPolicy(maxRetries: 3, baseDelay: 0.1, maxDelay: 0.2), draw: 0.5)
        _ = try await client.send(templateID: "t")
        #expect(clock.backoffSleeps == [0.05])
    }

    @Test(
        "Retry-After values up to the limit are waited exactly, without jitter or the maxDelay cap",
        arguments: [("0", 0.0), ("1.5", 1.5), ("60", 60.0), ("0.25", 0.25)])
    func retryAfterValues(header: String, expected: Double) async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [.respond(status: 503, headers: ["Retry-After": header]), TestClient.accepted], clock: clock)
        let client = try TestClient.make(
            transport, clock: clock, retry: RetryPolicy(maxRetries: 3, baseDelay: 0.1, maxDelay: 0.2))
        _ = try await client.send(templateID: "t")
        #expect(clock.backoffSleeps == [expected])
    }

    @Test("an HTTP-date Retry-After 10 s ahead is waited; a past date retries at once")
    func retryAfterDates() async throws {
        let clock = ManualClock()
        let ahead = httpDate(clock.wallStart.addingTimeInterval(10))
        let past = httpDate(clock.wallStart.addingTimeInterval(-100))
        let transport = ScriptedTransport(
            [
                .respond(status: 503, headers: ["Retry-After": ahead]),
                .respond(status: 503, headers: ["Retry-After": past]),
                TestClient.accepted,
            ], clock: clock)
        _ = try await TestClient.make(transport, clock: clock).send(templateID: "t")
        #expect(clock.backoffSleeps == [10, 0])
    }

    @Test("garbage Retry-After falls back to the jittered backoff")
    func garbageRetryAfter() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [.respond(status: 503, headers: ["Retry-After": "soon"]), TestClient.accepted], clock: clock)
        _ = try await TestClient.make(transport, clock: clock, draw: 0.5).send(templateID: "t")
        #expect(clock.backoffSleeps == [0.15])
    }

    @Test("Retry-After over the limit throws at once with retryAfter set", arguments: ["61", "3600"])
    func retryAfterOverLimit(header: String) async throws {
        let transport = ScriptedTransport([
            .respond(status: 429, headers: ["Retry-After": header], body: TestClient.errorBody("rate_limited"))
        ])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(transport.count == 1)
        #expect(error?.isRateLimit == true)
        #expect(error?.retryAfter == Double(header))
    }

    @Test(
        "a 503 whose Retry-After is an HTTP date with a huge year is retried on the backoff (it once trapped)",
        arguments: [
            "Sun, 06 Nov 2999999999999 08:49:37 GMT", "Sunday, 06-Nov-2999999999999 08:49:37 GMT",
            "Sun Nov  6 08:49:37 2999999999999",
        ])
    func hugeYearRetryAfter(header: String) async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [.respond(status: 503, headers: ["Retry-After": header]), TestClient.accepted], clock: clock)
        _ = try await TestClient.make(transport, clock: clock, draw: 0.5).send(templateID: "t")
        #expect(clock.backoffSleeps == [0.15])
        #expect(transport.count == 2)
    }

    @Test(
        "a status outside HTTP's classes of errors the contract retries ends the send after one request",
        arguments: [600, 999, 302, 304, 100, 0, -1, 1_000_000])
    func statusesOutsideTheTable(status: Int) async throws {
        let transport = ScriptedTransport([.respond(status: status, body: "<html>")])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(transport.count == 1)
        #expect(error?.status == status)
        #expect(error?.code == .badRequest)
    }

    @Test("a custom maxRetryAfter moves the limit")
    func customRetryAfterLimit() async throws {
        let transport = ScriptedTransport([.respond(status: 503, headers: ["Retry-After": "5"])])
        let client = try TestClient.make(transport, retry: RetryPolicy(maxRetryAfter: 4))
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(transport.count == 1)
        #expect(error?.retryAfter == 5)
    }

    @Test(
        "non-retryable statuses get exactly one request", arguments: [400, 401, 402, 403, 404, 408, 409, 413, 422, 451])
    func fourHundredsAreNotRetried(status: Int) async throws {
        let transport = ScriptedTransport([.respond(status: status, headers: ["Retry-After": "1"])])
        let error = await frontmailError { try await TestClient.make(transport).send(templateID: "t") }
        #expect(transport.count == 1)
        #expect(error?.status == status)
        #expect(error?.retryAfter == 1)
    }

    @Test(".disabled with a 500 makes one request")
    func disabledMakesOneRequest() async throws {
        let transport = ScriptedTransport([.respond(status: 500)])
        let error = await frontmailError {
            try await TestClient.make(transport, retry: .disabled).send(templateID: "t")
        }
        #expect(transport.count == 1)
        #expect(error?.code == .internalError)
    }

    @Test("an attempt that hangs past the timeout is abandoned and retried; the retry succeeds")
    func hangIsTimedOutAndRetried() async throws {
        let clock = ManualClock()
        let recorder = EventRecorder()
        let transport = ScriptedTransport([.hang(advancing: 0.4), TestClient.accepted], clock: clock)
        let client = try TestClient.make(transport, clock: clock, timeout: 0.4, draw: 0, observer: recorder)
        let result = try await client.send(templateID: "t")
        #expect(result.messageID == "msg_1")
        #expect(transport.count == 2)
        #expect(transport.cancellations == 1)
        let codes = recorder.all.compactMap { event -> FrontmailError.Code? in
            if case .attemptFinished(_, _, _, _, let code, _) = event { return code }
            return nil
        }
        #expect(codes == [.timeout])
        #expect(clock.pendingDeadlines == 0)
    }

    @Test("an answered attempt takes its deadline out of the timer: nothing is left to fire")
    func answeredAttemptsLeaveNoDeadline() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(Array(repeating: TestClient.accepted, count: 3), clock: clock)
        let client = try TestClient.make(transport, clock: clock, timeout: 0.4)
        for _ in 0..<3 { _ = try await client.send(templateID: "t") }
        #expect(transport.count == 3)
        #expect(clock.pendingDeadlines == 0)
        #expect(transport.cancellations == 0)
    }

    @Test("a hang with retries disabled throws timeout (not aborted), sub-second")
    func hangWithoutRetriesIsTimeout() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([.hang(advancing: 0.25)], clock: clock)
        let client = try TestClient.make(transport, clock: clock, retry: .disabled, timeout: 0.25)
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(error?.code == .timeout)
        #expect(error?.status == nil)
        #expect(error?.isNetwork == true)
        #expect(error?.isCancelled == false)
        #expect(transport.count == 1)
    }

    @Test("the deadline fires when time reaches it, not before")
    func deadlineNotBeforeItsTime() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([.hang(advancing: 0)], clock: clock)
        let client = try TestClient.make(transport, clock: clock, retry: .disabled, timeout: 0.3)
        let send = Task { await frontmailError { try await client.send(templateID: "t") } }
        try await waitUntil { transport.count == 1 && clock.pendingDeadlines == 1 }
        clock.advance(by: 0.2999)
        #expect(clock.pendingDeadlines == 1)
        #expect(transport.cancellations == 0)
        clock.advance(by: 0.0001)
        let error = await send.value
        #expect(error?.code == .timeout)
        #expect(transport.cancellations == 1)
    }

    @Test("backoff vectors of §4.3 (JS rounds down to whole milliseconds)")
    func backoffVectors() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: 0.1, maxDelay: 1)
        #expect((policy.backoffDelay(afterAttempt: 0, random: { 0.999 }) * 1000).rounded(.down) == 99)
        #expect(abs(policy.backoffDelay(afterAttempt: 5, random: { 0.5 }) - 0.5) < 1e-12)
        #expect(policy.backoffDelay(afterAttempt: 3, random: { 0 }) == 0)
        let defaults = RetryPolicy()
        #expect([0, 1, 2].map { defaults.backoffCap(afterAttempt: $0) } == [0.3, 0.6, 1.2])
        #expect(defaults.backoffCap(afterAttempt: 2000) == 10)
        let zero = RetryPolicy(baseDelay: 0)
        #expect(
            zero.backoffDelay(
                afterAttempt: 0,
                random: {
                    Issue.record("drew a random number")
                    return 0.5
                }) == 0)
        #expect(RetryPolicy.disabled.maxAttempts == 1)
        #expect(RetryPolicy(maxRetries: -2).maxRetries == 0)
    }

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
