import Foundation

/// A cancellable sleep on a `DispatchSourceTimer`.
///
/// `Task.sleep` keeps a cancelled sleep's timer (and its memory) until the original deadline
/// (swiftlang/swift#60441), so every attempt that ends before its deadline would leave a timer
/// pending for the whole timeout. This sleep cancels its timer, releasing it, the moment the wait
/// ends early; the waiting Task resumes from the cancellation handler at once.
enum TimerSleep {
    private static let queue = DispatchQueue(label: "dev.frontmail.timers", qos: .userInitiated)

    static func sleep(nanoseconds: UInt64) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                guard sleeper.attach(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let source = DispatchSource.makeTimerSource(queue: queue)
                source.setEventHandler { sleeper.finish(throwing: nil) }
                source.schedule(
                    deadline: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max)))), leeway: .microseconds(50))
                if sleeper.start(source) {
                    source.resume()
                } else {
                    // Ended meanwhile. A source must not be released while suspended: cancel, then resume.
                    source.cancel()
                    source.resume()
                }
            }
        } onCancel: {
            sleeper.finish(throwing: CancellationError())
        }
    }

    /// One sleep's state: a value-type machine under a lock; the continuation resumes outside it.
    ///
    /// `@unchecked Sendable`: `state` is only touched inside `Lock.withLock`; the timer source is
    /// thread-safe but not marked `Sendable`.
    private final class Sleeper: @unchecked Sendable {
        private enum State {
            case idle
            case waiting(UnsafeContinuation<Void, any Error>, (any DispatchSourceTimer)?)
            case cancelledEarly
            case done
        }

        private let state = Lock(State.idle)

        /// False when the Task was cancelled before the continuation existed.
        func attach(_ continuation: UnsafeContinuation<Void, any Error>) -> Bool {
            state.withLock { state in
                guard case .idle = state else {
                    state = .done
                    return false
                }
                state = .waiting(continuation, nil)
                return true
            }
        }

        /// False when the sleep already ended (the source must then not be resumed).
        func start(_ source: any DispatchSourceTimer) -> Bool {
            state.withLock { state in
                guard case .waiting(let continuation, nil) = state else { return false }
                state = .waiting(continuation, source)
                return true
            }
        }

        func finish(throwing error: (any Error)?) {
            let (continuation, source) = state.withLock {
                state -> (UnsafeContinuation<Void, any Error>?, (any DispatchSourceTimer)?) in
                switch state {
                case .idle:
                    state = .cancelledEarly
                    return (nil, nil)
                case .waiting(let continuation, let source):
                    state = .done
                    return (continuation, source)
                case .cancelledEarly, .done:
                    return (nil, nil)
                }
            }
            // Resume first: cancelling the source is Dispatch bookkeeping the waiter need not wait for.
            if let continuation {
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
            source?.cancel()
        }
    }
}

/// Sleeps like `Task.sleep`, but releases its timer as soon as the Task is cancelled.
package func cancellableSleep(seconds: Double) async throws {
    guard seconds > 0 else {
        try Task.checkCancellation()
        return
    }
    let nanoseconds = seconds * 1e9
    try await TimerSleep.sleep(nanoseconds: nanoseconds >= Double(UInt64.max) ? .max : UInt64(nanoseconds))
}

/// Suspends until the calling Task is cancelled, then throws `CancellationError`. No timer.
package func waitUntilCancelled() async throws -> Never {
    let waiter = Lock<(cancelled: Bool, continuation: UnsafeContinuation<Void, Never>?)>((false, nil))
    await withTaskCancellationHandler {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let resumeNow = waiter.withLock { state -> Bool in
                if state.cancelled { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    } onCancel: {
        let continuation = waiter.withLock { state -> UnsafeContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
    throw CancellationError()
}
