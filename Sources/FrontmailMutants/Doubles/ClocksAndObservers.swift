import Foundation
import Frontmail
import Synchronization

// Clients broken one way each, for the verdict tests that show a check fails them (each test
// names the check); not in explore's catalog, which holds the ones a search must find.

/// A clock whose wall time, within one send, stays at that send's first answer: an SDK that takes
/// "now" for a Retry-After date from the send's start instead of the answer's arrival. In process
/// on virtual time a first answer arrives when its send starts, so only a date on a later attempt
/// shows the difference.
package final class SendStartWallClock: WrappingClock {
    package let base: any FrontmailScheduler
    /// Keyed by the task's hash: a task that reuses a finished one's address inherits its date,
    /// which only makes this client more wrong.
    private let firstAnswer = Mutex<[Int: Date]>([:])

    package init(base: any FrontmailScheduler) {
        self.base = base
    }

    package func wallNow() -> Date {
        let now = base.wallNow()
        return withUnsafeCurrentTask { task in
            guard let task else { return now }
            let key = task.hashValue
            return firstAnswer.withLock { remembered in
                if let first = remembered[key] { return first }
                remembered[key] = now
                return now
            }
        }
    }
}

/// The real clock, but every wait is a `Task.sleep`: what an SDK without its own timer would do.
package struct TaskSleepClock: FrontmailScheduler {
    package let system = SystemClock()
    package init() {}
    package func now() -> TimeInterval { system.now() }
    package func wallNow() -> Date { system.wallNow() }
    package func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 1e6)) * 1e9))
    }
    package func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        system.startDeadline(deadline, onExpiry: expire)
    }
    package func cancelDeadline(_ token: UInt64) -> Bool { system.cancelDeadline(token) }
}

/// Reports twice the cap it uses (the wait itself is right).
package struct CapLyingObserver: SendObserver {
    package let base: any SendObserver
    package init(base: any SendObserver) { self.base = base }
    package func record(_ event: SendEvent) {
        guard case .backoffScheduled(let operation, let key, let afterAttempt, let delay, let cause) = event,
            case .jitter(let cap) = cause
        else { return base.record(event) }
        base.record(
            .backoffScheduled(
                operation: operation, key: key, afterAttempt: afterAttempt, delay: delay, cause: .jitter(cap: cap * 2)))
    }
}
