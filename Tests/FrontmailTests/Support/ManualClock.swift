import Foundation
import Synchronization

@testable import Frontmail

/// A clock that only moves when told to. Backoff sleeps move it by their own length (and are
/// recorded); deadlines expire when `advance(by:)` passes them.
final class ManualClock: FrontmailScheduler {
    private struct Waiter {
        var deadline: TimeInterval
        var expire: @Sendable () -> Void
    }

    private struct State {
        var now: TimeInterval = 0
        var backoffSleeps: [TimeInterval] = []
        var waiters: [UInt64: Waiter] = [:]
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

    /// Deadlines not yet expired or cancelled.
    var pendingDeadlines: Int { state.withLock { $0.waiters.count } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { $0.backoffSleeps.append(seconds) }
        advance(by: max(0, seconds))
    }

    func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, expired) = state.withLock { state -> (UInt64, Bool) in
            state.nextID += 1
            if state.now >= deadline { return (state.nextID, true) }
            state.waiters[state.nextID] = Waiter(deadline: deadline, expire: expire)
            return (state.nextID, false)
        }
        if expired { expire() }
        return id
    }

    func cancelDeadline(_ token: UInt64) -> Bool {
        state.withLock { $0.waiters.removeValue(forKey: token) } != nil
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
        for waiter in due.sorted(by: { $0.deadline < $1.deadline }) { waiter.expire() }
    }
}
