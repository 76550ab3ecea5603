import Foundation
import Synchronization

@testable import Frontmail

/// A clock that only moves when told to. Backoff sleeps move it by their own length (and are
/// recorded); deadline sleeps wait until `advance(by:)` passes them or the Task is cancelled.
final class ManualClock: FrontmailClock {
    private struct Waiter {
        var deadline: TimeInterval
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: TimeInterval = 0
        var backoffSleeps: [TimeInterval] = []
        var waiters: [UInt64: Waiter] = [:]
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The wall clock at `now() == 0`.
    let wallStart: Date

    init(wallStart: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.wallStart = wallStart
    }

    func now() -> TimeInterval { state.withLock { $0.now } }

    func wallNow() -> Date { wallStart.addingTimeInterval(now()) }

    /// Every backoff wait so far, in order.
    var backoffSleeps: [TimeInterval] { state.withLock { $0.backoffSleeps } }

    /// Deadline sleepers currently waiting.
    var pendingDeadlines: Int { state.withLock { $0.waiters.count } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { $0.backoffSleeps.append(seconds) }
        advance(by: max(0, seconds))
    }

    func sleep(until deadline: TimeInterval) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action { case resume, cancel, wait }
                let action = state.withLock { state -> Action in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if state.now >= deadline { return .resume }
                    state.waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch action {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every deadline that is now due.
    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Waiter] in
            state.now += seconds
            let now = state.now
            let due = state.waiters.filter { $0.value.deadline <= now }
            for id in due.keys { state.waiters[id] = nil }
            return Array(due.values)
        }
        for waiter in due { waiter.continuation.resume() }
    }
}
