import Foundation
import Synchronization

@testable import Frontmail

/// A transport double that answers from a script and records every request with the clock's time.
final class ScriptedTransport: FrontmailTransport {
    enum Step: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: String = "")
        case fail(any Error)
        /// Never answers; moves the clock by `advancing` first (the server holds the request while
        /// time passes), then waits until the attempt is cancelled.
        case hang(advancing: TimeInterval)
    }

    struct Recorded: Sendable {
        var request: FrontmailHTTPRequest
        var at: TimeInterval
        var bodyJSON: FrontmailValue? { request.body.flatMap { try? JSONReader.parse($0) } }
    }

    private let steps: [Step]
    private let clock: ManualClock?
    private let log = Mutex<[Recorded]>([])
    private let cancelledCount = Mutex(0)

    /// Answers with `steps` in order; the last step repeats.
    init(_ steps: [Step], clock: ManualClock? = nil) {
        precondition(!steps.isEmpty)
        self.steps = steps
        self.clock = clock
    }

    var requests: [Recorded] { log.withLock { $0 } }
    var count: Int { log.withLock { $0.count } }
    /// Attempts that ended because their Task was cancelled.
    var cancellations: Int { cancelledCount.withLock { $0 } }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let index = log.withLock { log -> Int in
            log.append(Recorded(request: request, at: clock?.now() ?? 0))
            return log.count - 1
        }
        switch steps[min(index, steps.count - 1)] {
        case .respond(let status, let headers, let body):
            return FrontmailHTTPResponse(
                status: status, headers: FrontmailHTTPHeaders(headers.map { ($0.key, $0.value) }), body: Data(body.utf8)
            )
        case .fail(let error):
            throw error
        case .hang(let seconds):
            if seconds > 0 { clock?.advance(by: seconds) }
            do {
                try await waitUntilCancelled()
            } catch {
                cancelledCount.withLock { $0 += 1 }
                throw error
            }
        }
    }
}

/// Collects the client's events.
final class EventRecorder: SendObserver {
    private let events = Mutex<[SendEvent]>([])
    func record(_ event: SendEvent) { events.withLock { $0.append(event) } }
    var all: [SendEvent] { events.withLock { $0 } }

    var backoffs: [(delay: TimeInterval, cause: BackoffCause)] {
        all.compactMap {
            if case .backoffScheduled(_, _, _, let delay, let cause) = $0 { return (delay, cause) }
            return nil
        }
    }
}

/// Common client set-ups for tests.
enum TestClient {
    static let key = "pk_test_123"
    static let base = URL(string: "https://api.test/")!

    static func make(
        _ transport: ScriptedTransport, clock: ManualClock = ManualClock(), retry: RetryPolicy = .default,
        timeout: TimeInterval = 15, draw: Double = 0.5, observer: EventRecorder? = nil,
        base: URL = TestClient.base
    ) throws -> Frontmail {
        try Frontmail(
            publicKey: key, apiURL: base, retry: retry, timeout: timeout, transport: transport,
            environment: SendEnvironment(clock: clock, entropy: bits(giving: draw), observer: observer))
    }

    /// Random bits the client's own conversion turns into `draw` (to within 2⁻⁵³, rounded down):
    /// the top 53 bits of each word give the draw; the low 11 count, so two keys still differ.
    static func bits(giving draw: Double) -> @Sendable () -> UInt64 {
        let word = UInt64((min(max(draw, 0), 1 - 0x1p-53) * 0x1p53).rounded(.down)) << 11
        let counter = Mutex<UInt64>(0)
        return {
            counter.withLock {
                $0 &+= 1
                return word | ($0 & 0x7FF)
            }
        }
    }

    static let accepted = ScriptedTransport.Step.respond(
        status: 202, body: #"{"message_id":"msg_1","status":"queued","status_token":"tok_1"}"#)

    static func errorBody(
        _ code: String, _ message: String = "server says no", docs: String? = nil, details: String? = nil
    )
        -> String
    {
        var fields = [#""code":"\#(code)""#, #""message":"\#(message)""#]
        if let docs { fields.append(#""docs_url":"\#(docs)""#) }
        if let details { fields.append(#""details":\#(details)"#) }
        return #"{"error":{\#(fields.joined(separator: ","))}}"#
    }
}

/// Runs `body` and returns the `FrontmailError` it throws (nil when it throws nothing or something else).
func frontmailError(_ body: () async throws -> Void) async -> FrontmailError? {
    do {
        try await body()
        return nil
    } catch let error as FrontmailError {
        return error
    } catch {
        return nil
    }
}
