import CFakeFrontmailSystem
import Foundation
import Frontmail
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
/// The scheduler of a simulated run: one thread runs every job of the run's task tree, in the
/// order its `Schedule` picks (first in, first out by default), and only when no job is left (every
/// task waits) does virtual time jump to the earliest pending sleep or deadline and fire it. The
/// same jobs and the same schedule give the same run, to the byte, however busy the host is.
///
/// Work that escapes (a job of the run's tasks enqueued from another thread: a real sleep, a
/// Dispatch hop, a thread resuming a continuation; or the virtual clock used from another thread:
/// a detached task) is recorded with the thread's name and fails the run (`SimulationError`).
// @unchecked Sendable: every mutable field is guarded by `condition`.
final class SimulationExecutor: TaskExecutor, @unchecked Sendable {
    enum Waiter {
        case sleep(UnsafeContinuation<Void, any Error>)
        case deadline(@Sendable () -> Void)
    }

    /// How long the loop waits, in real time, for a job from outside when every task waits and no
    /// timer is pending, before it calls the run deadlocked.
    private let stallGrace: TimeInterval

    private let condition = NSCondition()
    private var ready: ReadyJobs
    private var timers = TimerQueue<Waiter>()
    /// Virtual nanoseconds since the run began: written by the loop's thread only (under the
    /// lock, with the timers), read without it by every `now()`, the hottest call of a run.
    private let nanos = Atomic<UInt64>(0)
    private var thread: pthread_t?
    /// The first job ran: from now on a job enqueued from another thread escaped.
    private var started = false
    /// The run's root Task returned (or threw): the loop ends when its queue is empty.
    private var finished = false
    /// The run was cancelled from outside (an interrupt): jobs from other threads are expected.
    private var interrupted = false
    private var failures: [String] = []
    private var root: Task<Void, Never>?
    private var onStuck: (@Sendable () -> Void)?
    /// A test's broken scheduler: fire due timers every `advanceEvery` jobs, before quiescence.
    private let advanceEvery: Int?
    /// Jobs run and timers fired (for the run's figures).
    private(set) var jobCount = 0
    private(set) var timerCount = 0

    init(schedule: Schedule = .fifo, advanceEvery: Int? = nil, stallGrace: TimeInterval = 2) {
        ready = ReadyJobs(schedule)
        self.advanceEvery = advanceEvery
        self.stallGrace = stallGrace
    }

    // MARK: The executor

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if started, !interrupted, !isLoopThread {
            failures.append("a job of the run was enqueued from \(Self.threadName()) at \(timeText)")
            cancelRootLocked()
        }
        ready.append(unowned)
        condition.signal()
        condition.unlock()
    }

    // MARK: Virtual time

    var nowNanoseconds: UInt64 {
        nanos.load(ordering: .acquiring)
    }

    /// Registers a sleep until `deadline` (virtual nanoseconds); throws `CancellationError` when
    /// the Task is cancelled first.
    func sleep(until deadline: UInt64) async throws {
        let id = withLock { timers.makeID() }
        defer { withLock { timers.finished(id: id) } }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                condition.lock()
                checkThreadLocked("sleep")
                let added = timers.add(id: id, deadline: deadline, waiter: .sleep(continuation)).added
                condition.unlock()
                if !added { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = withLock { timers.cancel(id: id, rememberIfAbsent: true) }
            if case .sleep(let continuation) = waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    func startDeadline(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        withLock {
            checkThreadLocked("startDeadline")
            let id = timers.makeID()
            _ = timers.add(id: id, deadline: deadline, waiter: .deadline(action))
            return id
        }
    }

    func cancelDeadline(_ token: UInt64) -> Bool {
        withLock { timers.cancel(id: token, rememberIfAbsent: false) } != nil
    }

    // MARK: The run

    /// Starts the loop's thread and `body` as the root Task on this executor; `onStuck` is called
    /// (once, from the loop's thread) when the root can never finish.
    func start(onStuck: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async -> Void) {
        let root = Task(executorPreference: self) {
            await body()
            self.withLock { self.finished = true }
        }
        withLock {
            self.root = root
            self.onStuck = onStuck
        }
        let loop = Thread { [self] in self.loop() }
        loop.name = "frontmail.simulation"
        loop.stackSize = 8 << 20
        loop.start()
    }

    /// The run was cancelled from outside: cancellation handlers will resume its tasks from the
    /// canceller's thread.
    func interrupt() {
        let root = withLock {
            interrupted = true
            return self.root
        }
        // Outside the lock: cancelling runs the tasks' cancellation handlers on this thread, and
        // they take it (a virtual sleep's handler takes its timer out). Inside, an interrupted run
        // never ended: SIGINT hung every in-process run on virtual time.
        root?.cancel()
    }

    /// Why the run failed (nil: it did not).
    var failure: SimulationError? {
        withLock { failures.isEmpty ? nil : SimulationError(problems: failures) }
    }

    private func loop() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        var sinceAdvance = 0
        while true {
            condition.lock()
            if !ready.isEmpty, advanceEvery.map({ sinceAdvance < $0 }) ?? true, let job = ready.next() {
                started = true
                jobCount += 1
                condition.unlock()
                sinceAdvance += 1
                job.runSynchronously(on: asUnownedTaskExecutor())
                continue
            }
            sinceAdvance = 0
            if let earliest = timers.earliest {
                fireTimersLocked(at: earliest)
                continue
            }
            if !ready.isEmpty {
                condition.unlock()
                continue
            }
            if finished {
                releaseRunLocked()
                condition.unlock()
                return
            }
            if stalledLocked() { return }
        }
    }

    /// Moves the clock to `earliest` (never back) and fires every timer due then, in the ready
    /// queue's order. Called with the lock held; returns with it released.
    private func fireTimersLocked(at earliest: UInt64) {
        let now = max(nanos.load(ordering: .relaxed), earliest)
        nanos.store(now, ordering: .releasing)
        var due = timers.popDue(now: now).due
        ready.order(&due)
        timerCount += due.count
        condition.unlock()
        for waiter in due {
            switch waiter {
            case .sleep(let continuation): continuation.resume()
            case .deadline(let action): action()
            }
        }
    }

    /// Every task waits and nothing is timed: only something outside can wake one. Waits for that
    /// up to `stallGrace`; then the run is a deadlock and is cancelled, or, cancelled already, is
    /// abandoned. Called with the lock held; returns with it released; true when the loop is over.
    private func stalledLocked() -> Bool {
        if condition.wait(until: Date(timeIntervalSinceNow: stallGrace)) || !ready.isEmpty || timers.earliest != nil {
            condition.unlock()
            return false
        }
        let alreadyCancelled = root?.isCancelled ?? true
        if !alreadyCancelled {
            failures.append(
                "deadlock at \(timeText): every task of the run waits, no timer is pending and nothing woke one within \(stallGrace) s"
            )
            cancelRootLocked()
            condition.unlock()
            return false
        }
        failures.append("the run could not end after it was cancelled at \(timeText); it is abandoned")
        let stuck = onStuck
        releaseRunLocked()
        condition.unlock()
        stuck?()
        return true
    }

    // MARK: Helpers

    /// The loop is over: drop the root Task and the callback. The root Task keeps its preferred
    /// executor (this one) alive, and this executor kept the root and `onStuck`, whose outcome holds
    /// the run's value (the fake's ledger, the client's history): a cycle that kept every run of a
    /// process alive (a full sweep grew by about 20 MB per run, to 20 GB).
    private func releaseRunLocked() {
        root = nil
        onStuck = nil
    }

    private var isLoopThread: Bool {
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    private func checkThreadLocked(_ what: String) {
        guard !isLoopThread else { return }
        // A timer from outside: the loop may be waiting for exactly that.
        condition.signal()
        guard started, !interrupted else { return }
        failures.append("the virtual clock's \(what) was called from \(Self.threadName()) at \(timeText)")
        cancelRootLocked()
    }

    private func cancelRootLocked() {
        // From here on the run is ending: its tasks are resumed from the canceller's thread.
        interrupted = true
        // Cancelling runs handlers on this thread; they take this lock, so do it from a hop.
        guard let root else { return }
        DispatchQueue.global().async { root.cancel() }
    }

    private var timeText: String {
        String(format: "virtual time %.9f s", Double(nanos.load(ordering: .acquiring)) / 1e9)
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// The calling thread's name as the failure names it.
    static func threadName() -> String {
        if let name = Thread.current.name, !name.isEmpty { return "thread \"\(name)\"" }
        var buffer = [CChar](repeating: 0, count: 64)
        if cfm_thread_name(&buffer, UInt(buffer.count)) == 0 {
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            if !bytes.isEmpty { return "thread \"\(String(decoding: bytes, as: UTF8.self))\"" }
        }
        return "a thread outside the simulation"
    }
}

/// Why a simulated run failed: work escaped it, or it deadlocked.
public struct SimulationError: Error, CustomStringConvertible, Sendable {
    public let problems: [String]

    public var description: String {
        "the simulation failed: " + problems.prefix(3).joined(separator: "; ")
            + (problems.count > 3 ? " (and \(problems.count - 3) more)" : "")
            + ". Work that escapes virtual time (Task.detached, Task {} without the run's executor, a real sleep, a Dispatch hop, a thread) mixes clocks."
    }
}
