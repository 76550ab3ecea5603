import Foundation
import Frontmail

/// The one clock of a simulated run: the SDK's time, sleeps and per-attempt deadlines, the fake's
/// service times and windows, the load's schedule and every timestamp read it. It advances only
/// when every task of the run waits (see `SimulationExecutor`).
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public struct VirtualClock: FrontmailScheduler {
    /// The wall-clock time of virtual zero: a fixed instant, so HTTP dates are the same in every run.
    public static let epoch = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    let executor: SimulationExecutor

    public func now() -> TimeInterval {
        Double(executor.nowNanoseconds) / 1e9
    }

    public func wallNow() -> Date {
        Self.epoch.addingTimeInterval(now())
    }

    public func sleep(seconds: TimeInterval) async throws {
        if try Self.nothingToWait(seconds) { return }
        try await executor.sleep(until: Self.nanoseconds(now() + seconds))
    }

    public func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        executor.startDeadline(at: Self.nanoseconds(deadline), expire)
    }

    public func cancelDeadline(_ token: UInt64) -> Bool {
        executor.cancelDeadline(token)
    }

    public func startExchange(
        _ transport: any FrontmailTransport, _ request: FrontmailHTTPRequest
    ) -> Task<Result<FrontmailHTTPResponse, any Error>, Never> {
        Task(executorPreference: executor) { await transport.exchange(request) }
    }

    /// Virtual nanoseconds of a time in seconds, rounded to the nearest (saturating; never negative).
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds > 0 else { return 0 }
        let nanos = (seconds * 1e9).rounded()
        return nanos >= Double(UInt64.max - 1) ? UInt64.max - 1 : UInt64(nanos)
    }
}

/// Runs a task tree on virtual time.
public enum Simulation {
    /// What a simulated run cost: its jobs, timers, virtual and wall seconds.
    public struct Figures: Sendable {
        public var jobs: Int
        public var timers: Int
        public var virtualSeconds: Double
        public var wallSeconds: Double

        /// Simulated seconds per wall second.
        public var speed: Double { wallSeconds > 0 ? virtualSeconds / wallSeconds : 0 }
    }

    /// Runs `body` with every job of its task tree on one thread and every time source on one
    /// virtual clock starting at zero. Throws `SimulationError` when work escaped the simulation or
    /// the run deadlocked; `body`'s own error otherwise. Cancelling the caller cancels the run.
    ///
    /// `schedule` orders the jobs ready at once and the timers due at one instant (fifo: as they
    /// came). `advanceEvery` breaks the scheduler on purpose, for the tests that show a verdict depends on
    /// it: due timers fire every that many jobs, before the run is quiescent. `stallGrace` is how
    /// long (real seconds) a run in which every task waits and nothing is timed may wait for a job
    /// from outside before it is called deadlocked.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public static func run<T: Sendable>(
        schedule: Schedule = .fifo, advanceEvery: Int? = nil, stallGrace: TimeInterval = 2,
        _ body: @escaping @Sendable (VirtualClock) async throws -> T
    ) async throws -> (value: T, figures: Figures) {
        let executor = SimulationExecutor(schedule: schedule, advanceEvery: advanceEvery, stallGrace: stallGrace)
        let clock = VirtualClock(executor: executor)
        let outcome = OneShot<Result<T, any Error>>()
        let wallStart = DispatchTime.now().uptimeNanoseconds
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                outcome.onFill { continuation.resume() }
                executor.start(onStuck: { outcome.fill(.failure(CancellationError())) }) {
                    do {
                        outcome.fill(.success(try await body(clock)))
                    } catch {
                        outcome.fill(.failure(error))
                    }
                }
            }
        } onCancel: {
            executor.interrupt()
        }
        let figures = Figures(
            jobs: executor.jobCount, timers: executor.timerCount, virtualSeconds: clock.now(),
            wallSeconds: Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9)
        if let failure = executor.failure { throw failure }
        return (try outcome.value!.get(), figures)
    }
}

/// A value filled once, and one callback run when it is (at once if it already is).
// @unchecked Sendable: guarded by `lock`.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    private var callback: (@Sendable () -> Void)?

    var value: Value? {
        lock.withLock { stored }
    }

    func fill(_ value: Value) {
        let callback = lock.withLock { () -> (@Sendable () -> Void)? in
            guard stored == nil else { return nil }
            stored = value
            defer { self.callback = nil }
            return self.callback
        }
        callback?()
    }

    func onFill(_ body: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if stored != nil { return true }
            callback = body
            return false
        }
        if now { body() }
    }
}
