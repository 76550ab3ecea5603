import Foundation

/// Cancellable sleeps and deadlines on one shared Dispatch timer.
///
/// `Task.sleep` keeps a cancelled sleep's timer (and its memory) until the original deadline
/// (swiftlang/swift#60441), so every attempt that ends before its deadline would leave a timer
/// pending for the whole timeout. Here every sleep and every per-attempt deadline is an entry in
/// one `TimerQueue`: a cancelled one is removed at once (memory stays flat), and one
/// `DispatchSourceTimer` is re-armed only when the earliest deadline moves earlier, so a busy client
/// pays a heap insert and removal per attempt, not a timer or a Task of its own.
// @unchecked Sendable: all mutable state is guarded by `lock`; the Dispatch source is thread-safe.
final class SleepScheduler: @unchecked Sendable {
    static let shared = SleepScheduler()

    /// What a timer entry does when it is due.
    private enum Waiter {
        /// A sleeping Task: resumed (thrown `CancellationError` when cancelled).
        case sleep(UnsafeContinuation<Void, any Error>)
        /// A deadline: the action runs on the timer's queue.
        case deadline(@Sendable () -> Void)
    }

    private let lock = NSLock()
    private var timers = TimerQueue<Waiter>()
    private let queue = DispatchQueue(label: "dev.frontmail.timers", qos: .userInitiated)
    private let source: any DispatchSourceTimer

    /// The shared instance is what the SDK uses; tests make their own.
    init() {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [unowned self] in fire() }
        source.schedule(deadline: .distantFuture)
        source.resume()
    }

    /// Live sleeps and deadlines (0 when nothing waits).
    var pending: Int {
        lock.withLock { timers.pending }
    }

    static func deadline(afterNanoseconds nanoseconds: UInt64) -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        return nanoseconds >= UInt64.max - now ? UInt64.max - 1 : now + nanoseconds
    }

    func sleep(nanoseconds: UInt64) async throws {
        let deadline = Self.deadline(afterNanoseconds: nanoseconds)
        let id = lock.withLock { timers.makeID() }
        defer { lock.withLock { timers.finished(id: id) } }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                lock.lock()
                // Armed under the lock, so two sleepers cannot leave the later deadline armed.
                let (added, arm) = timers.add(id: id, deadline: deadline, waiter: .sleep(continuation))
                if let arm { self.arm(arm) }
                lock.unlock()
                if !added { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = lock.withLock { timers.cancel(id: id, rememberIfAbsent: true) }
            if case .sleep(let continuation) = waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `action` on the timer's queue at the uptime `deadline` (nanoseconds), unless
    /// `cancelDeadline` removes it first. Returns its token.
    func startDeadline(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let id = timers.makeID()
        if let arm = timers.add(id: id, deadline: deadline, waiter: .deadline(action)).arm { self.arm(arm) }
        return id
    }

    /// Removes a deadline before it fires; false when it has fired (its action ran or is running).
    func cancelDeadline(_ token: UInt64) -> Bool {
        lock.withLock { timers.cancel(id: token, rememberIfAbsent: false) } != nil
    }

    private func arm(_ deadline: UInt64) {
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(50))
    }

    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        let (due, next) = timers.popDue(now: now)
        if let next {
            arm(next)
        } else {
            source.schedule(deadline: .distantFuture)
        }
        lock.unlock()
        for waiter in due {
            switch waiter {
            case .sleep(let continuation): continuation.resume()
            case .deadline(let action): action()
            }
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
    try await SleepScheduler.shared.sleep(nanoseconds: nanoseconds >= Double(UInt64.max) ? .max : UInt64(nanoseconds))
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

/// The SDK's shared timer, seen from outside: what a run that does not end is waiting for.
package enum FrontmailTimers {
    /// Live sleeps and per-attempt deadlines of every client in this process.
    package static var pending: Int { SleepScheduler.shared.pending }
}
