/// What one exchange of `URLSessionTransport` is doing, as a value: each event changes the state
/// and returns what the caller must do, outside the lock that guards the value (resume the
/// caller's continuation, start or cancel the task). Generic over the continuation and the task,
/// so that tests drive it with plain values.
///
/// The rules: the caller is resumed exactly once, by whichever comes first of the task's
/// completion and the caller's cancellation; a task made after the exchange ended is cancelled,
/// never started; a running task whose caller was cancelled is cancelled.
struct ExchangeStateMachine<Continuation, DataTask> {
    enum State {
        /// Nothing yet: the continuation does not exist.
        case idle
        /// The caller waits; the task is being made on the transport's queue.
        case waiting(Continuation)
        /// The task runs.
        case running(Continuation, DataTask)
        /// The caller was cancelled before it waited: it must not wait at all.
        case cancelledBeforeStart
        /// The caller was resumed.
        case finished
    }

    private(set) var state = State.idle

    /// The caller's continuation exists. False: the caller was already cancelled and must be
    /// resumed with a cancellation at once.
    mutating func attach(_ continuation: Continuation) -> Bool {
        guard case .idle = state else {
            state = .finished
            return false
        }
        state = .waiting(continuation)
        return true
    }

    /// Whether a task is still wanted (the caller waits and none was made).
    var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    enum StartAction {
        case resume
        /// The exchange ended while the task was made: cancel it.
        case cancel
    }

    /// The task was made.
    mutating func started(_ task: DataTask) -> StartAction {
        guard case .waiting(let continuation) = state else { return .cancel }
        state = .running(continuation, task)
        return .resume
    }

    enum CancelAction {
        case none
        /// Resume the caller with a cancellation.
        case resume(Continuation)
        /// Resume the caller with a cancellation and cancel the running task.
        case resumeAndCancel(Continuation, DataTask)
    }

    /// The caller's Task was cancelled.
    mutating func cancel() -> CancelAction {
        switch state {
        case .idle:
            state = .cancelledBeforeStart
            return .none
        case .waiting(let continuation):
            state = .finished
            return .resume(continuation)
        case .running(let continuation, let task):
            state = .finished
            return .resumeAndCancel(continuation, task)
        case .cancelledBeforeStart, .finished:
            return .none
        }
    }

    /// The task completed: the continuation to resume with its result, nil when the caller was
    /// already resumed.
    mutating func complete() -> Continuation? {
        switch state {
        case .running(let continuation, _), .waiting(let continuation):
            state = .finished
            return continuation
        case .idle, .cancelledBeforeStart, .finished:
            return nil
        }
    }
}
