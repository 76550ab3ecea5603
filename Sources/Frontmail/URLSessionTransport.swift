import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: one `URLSessionDataTask` per attempt.
///
/// URLSession's `resume()` and `cancel()` can block on the session's internal queue, so they run on
/// a private serial dispatch queue, never on Swift's cooperative thread pool. The caller waits on a
/// continuation that is resumed by whichever comes first: the task's completion or the caller's
/// cancellation (which does not wait for URLSession's own cancelled callback).
public struct URLSessionTransport: FrontmailTransport {
    public let session: URLSession
    private let queue: DispatchQueue
    private let live: LiveCounter

    public init(session: URLSession = .shared) {
        self.session = session
        self.queue = DispatchQueue(label: "dev.frontmail.urlsession-transport", qos: .userInitiated)
        self.live = LiveCounter()
    }

    /// Requests whose continuation has not been resumed yet (0 when nothing is in flight).
    package var liveRequests: Int { live.value }

    /// Waits until every task creation or cancellation already queued has run (before the owner
    /// of the session invalidates it: a task made on an invalidated session traps).
    package func drain() {
        queue.sync {}
    }

    public func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let urlRequest = Self.makeURLRequest(request)
        let exchange = Exchange(live: live)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation {
                (continuation: UnsafeContinuation<FrontmailHTTPResponse, any Error>) in
                guard exchange.attach(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let session = session
                queue.async {
                    guard exchange.isWaiting else { return }
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        exchange.complete(data: data, response: response, error: error)
                    }
                    if exchange.setTask(task) {
                        task.resume()
                    } else {
                        task.cancel()
                    }
                }
            }
        } onCancel: {
            if let task = exchange.cancel() {
                queue.async { task.cancel() }
            }
        }
    }

    static func makeURLRequest(_ request: FrontmailHTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.httpShouldHandleCookies = false
        // A backstop only: the client enforces the real deadline (Linux truncates this to whole seconds).
        urlRequest.timeoutInterval = max(1, request.timeout.rounded(.up) + 1)
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        return urlRequest
    }
}

/// Counts exchanges that have not finished, to prove nothing leaks.
///
/// `@unchecked Sendable`: the count is only touched under its lock.
final class LiveCounter: @unchecked Sendable {
    private let count = Lock(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
    func decrement() { count.withLock { $0 -= 1 } }
}

/// One exchange: its `ExchangeStateMachine` under a lock; continuations resume and tasks are
/// cancelled outside it.
///
/// `@unchecked Sendable`: `machine` is only read and written inside `Lock.withLock`.
private final class Exchange: @unchecked Sendable {
    typealias Continuation = UnsafeContinuation<FrontmailHTTPResponse, any Error>

    private let machine = Lock(ExchangeStateMachine<Continuation, URLSessionDataTask>())
    private let live: LiveCounter

    init(live: LiveCounter) {
        self.live = live
    }

    /// False when the caller was cancelled before the continuation existed.
    func attach(_ continuation: Continuation) -> Bool {
        let attached = machine.withLock { $0.attach(continuation) }
        if attached { live.increment() }
        return attached
    }

    var isWaiting: Bool { machine.withLock { $0.isWaiting } }

    /// False when the exchange already ended (the task must then be cancelled, not resumed).
    func setTask(_ task: URLSessionDataTask) -> Bool {
        machine.withLock { $0.started(task) } == .resume
    }

    /// Resumes the caller at once; returns the task to cancel, if one was started.
    func cancel() -> URLSessionDataTask? {
        switch machine.withLock({ $0.cancel() }) {
        case .none:
            return nil
        case .resume(let continuation):
            live.decrement()
            continuation.resume(throwing: CancellationError())
            return nil
        case .resumeAndCancel(let continuation, let task):
            live.decrement()
            continuation.resume(throwing: CancellationError())
            return task
        }
    }

    func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
        let continuation = machine.withLock { $0.complete() }
        guard let continuation else { return }
        live.decrement()
        if let error {
            continuation.resume(throwing: error)
        } else if let http = response as? HTTPURLResponse {
            let fields = http.allHeaderFields
            var headers = FrontmailHTTPHeaders()
            headers.reserveCapacity(fields.count)
            for (name, value) in fields {
                // Strings on every platform seen; a cast costs a fraction of describing the value.
                headers.add(name: name.base as? String ?? "\(name)", value: value as? String ?? "\(value)")
            }
            continuation.resume(
                returning: FrontmailHTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
