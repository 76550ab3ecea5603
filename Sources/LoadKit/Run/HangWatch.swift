import Foundation
import Frontmail

/// A run on the real clock that does not end is a verdict, not a wait for CI's timeout: past its
/// limit the run is cancelled, and when it still has not ended after a grace period it is left
/// behind with a FAIL naming what it was waiting for (the sends still open, the SDK's timers still
/// pending). A run on virtual time needs none: the simulation knows when nothing can move.
enum HangWatch {
    /// How long a scenario on the real clock may run before it counts as hung: five times its wall
    /// budget, at least 60 s (a budget is what a healthy run takes on an idle machine; a busy CI
    /// runner takes up to a few times that).
    static func limit(_ scenario: Scenario) -> Double {
        max(60, 5 * (scenario.wallBudget?.seconds ?? 60))
    }

    /// What a hung run was waiting for.
    struct Hang: Error, CustomStringConvertible {
        var limit: Double
        var grace: Double
        var openSends: Int
        var pendingTimers: Int
        /// The run ended once cancelled (within the grace period); otherwise it was left behind.
        var endedWhenCancelled: Bool

        var description: String {
            let ending =
                endedWhenCancelled
                ? "it ended once cancelled"
                : "it did not end \(Int(grace)) s after it was cancelled and was left behind"
            return "hang: the run did not end within \(Int(limit)) s; \(ending); "
                + "waiting for \(openSends) open sends, \(pendingTimers) SDK timers pending"
        }
    }

    /// `work`'s value, or `Hang` when it does not end within `limit` seconds (then it is cancelled
    /// and given `grace` seconds more; a task that still runs after that is abandoned).
    static func bounded<T>(limit: Double, grace: Double = 10, _ work: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        let task = Task { try await Box(work()) }
        // The run is a task of its own: a cancel of the caller (a signal) reaches it at once.
        let finished = await withTaskCancellationHandler {
            await first(task, within: limit)
        } onCancel: {
            task.cancel()
        }
        if let result = finished { return try result.get().value }
        let open = OpenSends.count.load(ordering: .relaxed)
        let timers = FrontmailTimers.pending
        task.cancel()
        let ended = await first(task, within: grace) != nil
        throw Hang(limit: limit, grace: grace, openSends: open, pendingTimers: timers, endedWhenCancelled: ended)
    }

    /// The task's result if it ends within `seconds`; nil otherwise (the task goes on).
    private static func first<T>(_ task: Task<Box<T>, any Error>, within seconds: Double) async
        -> Result<Box<T>, any Error>?
    {
        let race = Race<Result<Box<T>, any Error>>()
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            race.finish(nil)
        }
        // The timer ends with the run, not at its limit (a search runs thousands of cases).
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            race.start(continuation)
            Task { race.finish(await task.result) }
        }
    }

    /// A value carried from the run's task to its caller.
    // @unchecked Sendable: handed from the run's task to its caller once, never shared.
    struct Box<T>: @unchecked Sendable {
        var value: T
        init(_ value: T) { self.value = value }
    }

    /// The first of two outcomes resumes the waiter; the second is dropped.
    // @unchecked Sendable: every access to the state is under `lock`.
    private final class Race<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Value?, Never>?
        private var early: Value??

        func start(_ continuation: CheckedContinuation<Value?, Never>) {
            lock.lock()
            if let early {
                lock.unlock()
                continuation.resume(returning: early)
                return
            }
            self.continuation = continuation
            lock.unlock()
        }

        func finish(_ value: Value?) {
            lock.lock()
            guard early == nil else { return lock.unlock() }
            early = .some(value)
            let waiter = continuation
            continuation = nil
            lock.unlock()
            waiter?.resume(returning: value)
        }
    }
}
