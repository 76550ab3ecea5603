import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Frontmail {
    /// Runs one logical request: attempts, deadlines, backoff, Retry-After and cancellation.
    ///
    /// Returns the first 2xx response; throws the last error otherwise. A cancelled Task throws
    /// `aborted` at once and no further attempt starts.
    func execute(
        _ request: FrontmailHTTPRequest, operation: OperationKind, key: String?, retry: RetryPolicy
    ) async throws(FrontmailError) -> FrontmailHTTPResponse {
        let clock = environment.clock
        let observer = environment.observer
        let bucket = retry.budget == nil ? nil : retryBucket
        var attempt = 0
        var lastRetryCost: Int?
        while true {
            // Read before the cancellation check: an attempt that passed the check began before
            // any cancel it did not see, and its reported start says so.
            let started = clock.now()
            if Task.isCancelled { throw .aborted }
            if attempt == 0 { bucket?.firstAttempt() }
            observer?.record(.attemptStarted(operation: operation, key: key, attempt: attempt, at: started))
            let error: FrontmailError
            switch await runAttempt(request) {
            case .response(let response):
                if (200..<300).contains(response.status) {
                    observer?.record(
                        .attemptFinished(
                            operation: operation, key: key, attempt: attempt, status: response.status, code: nil,
                            duration: clock.now() - started))
                    bucket?.succeeded(lastRetryCost: lastRetryCost)
                    return response
                }
                error = Self.responseError(response, now: clock.wallNow())
            case .failure(let failure):
                error = Task.isCancelled ? .aborted : failure
            }
            observer?.record(
                .attemptFinished(
                    operation: operation, key: key, attempt: attempt, status: error.status, code: error.code,
                    duration: clock.now() - started))
            if error.code == .aborted || Task.isCancelled { throw .aborted }
            guard Self.isRetryable(error), attempt < retry.maxRetries else { throw error }

            if let retryAfter = error.retryAfter, retryAfter > retry.maxRetryAfter { throw error }
            if let bucket {
                guard let cost = bucket.acquire(after: error) else {
                    observer?.record(
                        .retryRefused(
                            operation: operation, key: key, afterAttempt: attempt, level: bucket.level,
                            cost: bucket.cost(after: error)))
                    throw error
                }
                lastRetryCost = cost
            }
            let delay: TimeInterval
            let cause: BackoffCause
            if let retryAfter = error.retryAfter {
                delay = retryAfter
                cause = .retryAfter(retryAfter)
            } else {
                delay = retry.backoffDelay(afterAttempt: attempt, random: environment.unitDraw)
                cause = .jitter(cap: retry.backoffCap(afterAttempt: attempt))
            }
            observer?.record(
                .backoffScheduled(operation: operation, key: key, afterAttempt: attempt, delay: delay, cause: cause))
            do {
                try await clock.sleep(seconds: delay)
            } catch {
                throw .aborted
            }
            if Task.isCancelled { throw .aborted }
            attempt += 1
        }
    }

    /// Network errors, timeouts, 5xx and 429 are retried; nothing else is (a status outside
    /// HTTP's classes, 600 or 999, is not a server error: it ends the send).
    static func isRetryable(_ error: FrontmailError) -> Bool {
        if let status = error.status { return (500...599).contains(status) || status == 429 }
        return error.code == .networkError || error.code == .timeout
    }

    private enum AttemptOutcome: Sendable {
        case response(FrontmailHTTPResponse)
        case failure(FrontmailError)
    }

    /// One attempt against its deadline. The exchange runs in a Task of its own, which the clock
    /// starts (the system clock: at once, on this thread, until it first suspends, so a transport
    /// that answers without suspending costs no thread hop), and the deadline is an entry in the shared timer that cancels that Task when
    /// it expires. The caller's cancellation is passed on to the exchange; the transport must end
    /// promptly when cancelled (URLSessionTransport resumes its caller at once).
    private func runAttempt(_ request: FrontmailHTTPRequest) async -> AttemptOutcome {
        let clock = environment.clock
        let timeout = self.timeout
        guard timeout.isFinite else {
            return Self.outcome(await transport.exchange(request))
        }
        // Taken before the exchange starts, so a test clock that moves on can't be missed.
        let deadline = clock.now() + timeout
        let exchange = clock.startExchange(transport, request)
        let token = clock.startDeadline(deadline) { exchange.cancel() }
        let result = await withTaskCancellationHandler {
            await exchange.value
        } onCancel: {
            exchange.cancel()
        }
        if clock.cancelDeadline(token) { return Self.outcome(result) }
        // The deadline expired and cancelled the exchange: a response that made it anyway stands.
        if case .success(let response) = result { return .response(response) }
        return .failure(
            .client(.timeout, "No complete response within \(Self.seconds(timeout)) (the per-attempt timeout)."))
    }

    private static func outcome(_ result: Result<FrontmailHTTPResponse, any Error>) -> AttemptOutcome {
        switch result {
        case .success(let response): return .response(response)
        case .failure(let error): return .failure(transportError(error))
        }
    }

    /// Maps what a transport threw to a client error that keeps it as its `underlyingError`.
    ///
    /// Whether a send was aborted is decided by the caller's Task alone (see `execute`): a
    /// cancellation the transport reports on its own is a failed exchange like any other.
    static func transportError(_ error: any Error) -> FrontmailError {
        if let error = error as? FrontmailError { return error }
        if error is CancellationError {
            return .client(.networkError, "The transport cancelled the request.", underlying: error)
        }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return .client(.networkError, "The transport cancelled the request.", underlying: error)
            case .timedOut:
                return .client(
                    .timeout, "The request timed out (\(urlError.localizedDescription)).", underlying: error)
            default:
                return .client(
                    .networkError, "The network request failed: \(urlError.localizedDescription)", underlying: error)
            }
        }
        return .client(.networkError, "The network request failed: \(error)", underlying: error)
    }

    static func seconds(_ value: TimeInterval) -> String {
        value < 1 ? "\(Int((value * 1000).rounded())) ms" : "\(value) s"
    }
}
