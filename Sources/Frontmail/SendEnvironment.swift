import Foundation

/// Time and tasks as the client sees them: a monotonic clock for deadlines and backoff, a wall
/// clock for HTTP dates, the sleeps and per-attempt deadlines, and the start of each attempt's
/// exchange Task. So it is the client's scheduler, not only its clock: a simulation that owns it
/// runs every timer and every exchange of the client on its own executor. Tests and the load suite
/// inject their own (`SendEnvironment.clock`).
package protocol FrontmailScheduler: Sendable {
    /// Monotonic seconds since an arbitrary fixed point.
    func now() -> TimeInterval
    /// The wall-clock time, for Retry-After dates.
    func wallNow() -> Date
    /// Sleeps for `seconds` (a backoff wait); throws when the Task is cancelled.
    func sleep(seconds: TimeInterval) async throws
    /// Calls `expire` once, when `now() >= deadline` (a per-attempt deadline), unless
    /// `cancelDeadline` removes it first. Returns its token. No Task waits for it.
    func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64
    /// Removes a deadline before it expires: false when it has expired (its `expire` ran or is running).
    func cancelDeadline(_ token: UInt64) -> Bool
    /// Starts the Task of one attempt's exchange (`transport.send(request)`). The system clock
    /// starts it at once on the calling thread; a simulated clock starts it on the simulation's
    /// executor, so it runs on virtual time.
    func startExchange(
        _ transport: any FrontmailTransport, _ request: FrontmailHTTPRequest
    ) -> Task<Result<FrontmailHTTPResponse, any Error>, Never>
}

extension FrontmailScheduler {
    /// The rule every scheduler's `sleep` keeps for a wait of no time (a `Retry-After: 0`, a
    /// zero-length delay): nothing to wait, so return at once, but still throw when the Task is
    /// cancelled. True when there is nothing to wait.
    package static func nothingToWait(_ seconds: TimeInterval) throws -> Bool {
        guard seconds > 0 else {
            try Task.checkCancellation()
            return true
        }
        return false
    }

    package func startExchange(
        _ transport: any FrontmailTransport, _ request: FrontmailHTTPRequest
    ) -> Task<Result<FrontmailHTTPResponse, any Error>, Never> {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate { await transport.exchange(request) }
        }
        return Task { await transport.exchange(request) }
    }
}

extension FrontmailTransport {
    /// One exchange, its error kept as a value.
    package func exchange(_ request: FrontmailHTTPRequest) async -> Result<FrontmailHTTPResponse, any Error> {
        do {
            return .success(try await send(request))
        } catch {
            return .failure(error)
        }
    }
}

/// The real clock: `DispatchTime` (monotonic) and one shared Dispatch timer (`SleepScheduler`).
package struct SystemClock: FrontmailScheduler {
    package init() {}

    package func now() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    package func wallNow() -> Date { Date() }

    package func sleep(seconds: TimeInterval) async throws {
        if try Self.nothingToWait(seconds) { return }
        try await SleepScheduler.shared.sleep(nanoseconds: Self.nanoseconds(seconds))
    }

    package func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        let uptime = deadline * 1e9
        return SleepScheduler.shared.startDeadline(
            at: uptime >= Double(UInt64.max - 1) ? UInt64.max - 1 : UInt64(max(0, uptime)), expire)
    }

    package func cancelDeadline(_ token: UInt64) -> Bool {
        SleepScheduler.shared.cancelDeadline(token)
    }

    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        let nanos = seconds * 1e9
        return nanos >= Double(UInt64.max) ? UInt64.max : UInt64(nanos)
    }
}

/// Why the client waits before the next attempt.
package enum BackoffCause: Sendable, Hashable {
    /// Full jitter: `delay = r × cap` with `r` uniform in [0, 1).
    case jitter(cap: TimeInterval)
    /// The server's Retry-After, waited exactly.
    case retryAfter(TimeInterval)
}

/// Which request a logical operation is.
package enum OperationKind: String, Sendable {
    case send
    case status
    case publicConfig = "public_config"
}

/// What the client reports, per logical operation, to an opt-in observer.
package enum SendEvent: Sendable {
    /// Attempt `attempt` (0-based) is about to be handed to the transport.
    case attemptStarted(operation: OperationKind, key: String?, attempt: Int, at: TimeInterval)
    /// The attempt ended: `status` when a response arrived, `code` when it is an error.
    case attemptFinished(
        operation: OperationKind, key: String?, attempt: Int, status: Int?, code: FrontmailError.Code?,
        duration: TimeInterval)
    /// A wait was scheduled after failed attempt `afterAttempt`.
    case backoffScheduled(
        operation: OperationKind, key: String?, afterAttempt: Int, delay: TimeInterval, cause: BackoffCause)
    /// The retry budget held fewer tokens than a retry after `afterAttempt` costs (`level` of
    /// `cost`): no retry, the attempt's error is thrown.
    case retryRefused(operation: OperationKind, key: String?, afterAttempt: Int, level: Int, cost: Int)
}

/// Receives the client's events. Called synchronously on the sending Task: keep it cheap.
package protocol SendObserver: Sendable {
    func record(_ event: SendEvent)
}

/// What the client depends on besides its transport: time, random bits and an observer.
///
/// Only entropy and time are injected: the client's own code turns the bits into a jitter draw
/// and an idempotency key, and does its own date arithmetic on the clock's `wallNow`, whatever
/// the source (a simulation supplies seeded bits and virtual time; the decisions stay the SDK's).
package struct SendEnvironment: Sendable {
    package var clock: any FrontmailScheduler
    /// Random bits, 64 at a time (nil: the system's random generator). A simulation draws them from
    /// its seed, so its jitter and keys are the same in every run.
    package var entropy: (@Sendable () -> UInt64)?
    /// Random bits for the jitter draws alone (nil: `entropy`'s): reproducible backoff while keys
    /// stay whatever `entropy` makes them.
    package var jitterEntropy: (@Sendable () -> UInt64)?
    package var observer: (any SendObserver)?
    /// The token bucket of the client's retry budget, made once per client from its policy's
    /// budget (nil: the client's own `RetryBucket`): a bucket several clients share, or one that
    /// counts its tokens another way. The SDK still decides each retry from what the bucket says.
    package var retryTokens: (@Sendable (RetryBudget) -> any RetryTokens)?

    package init(
        clock: any FrontmailScheduler = SystemClock(),
        entropy: (@Sendable () -> UInt64)? = nil,
        observer: (any SendObserver)? = nil
    ) {
        self.clock = clock
        self.entropy = entropy
        self.observer = observer
    }

    package static let live = SendEnvironment()

    /// A uniform draw in [0, 1) from 53 random bits: the one conversion of the client's jitter,
    /// the same with the system's generator and with injected bits.
    func unitDraw() -> Double {
        let bits: UInt64
        if let source = jitterEntropy ?? entropy {
            bits = source()
        } else {
            var generator = SystemRandomNumberGenerator()
            bits = generator.next()
        }
        return Double(bits >> 11) * 0x1.0p-53
    }

    /// The sixteen random bytes of an idempotency key: two words of the injected bits, or the
    /// system's generator.
    func keyWords() -> (UInt64, UInt64) {
        guard let entropy else { return Frontmail.randomWords() }
        let high = entropy()
        return (high, entropy())
    }
}
