import Foundation
import Frontmail

/// Reports every attempt twice.
package struct DoubleCountingObserver: SendObserver {
    package let base: any SendObserver
    package init(base: any SendObserver) { self.base = base }
    package func record(_ event: SendEvent) {
        base.record(event)
        switch event {
        case .attemptStarted, .attemptFinished: base.record(event)
        default: break
        }
    }
}

/// A client clock whose sleeps do not end on cancellation (a deadline resumes them, nothing
/// else): an SDK that waits out its backoff after the caller cancelled.
package struct DeafSleepClock: WrappingClock {
    package let base: any FrontmailScheduler
    package init(base: any FrontmailScheduler) { self.base = base }

    package func sleep(seconds: TimeInterval) async throws {
        let deadline = base.now() + seconds
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = base.startDeadline(deadline) { done.resume() }
        }
    }
}

/// A client clock that sleeps `sleepFactor` times what it is asked and fires deadlines late: the
/// SDK above it reports the waits it asked for.
package struct SkewedClock: WrappingClock {
    package let base: any FrontmailScheduler
    package let sleepFactor: Double
    package let deadlineLag: Double

    package init(base: any FrontmailScheduler, sleepFactor: Double, deadlineLag: Double) {
        self.base = base
        self.sleepFactor = sleepFactor
        self.deadlineLag = deadlineLag
    }

    package func sleep(seconds: TimeInterval) async throws { try await base.sleep(seconds: seconds * sleepFactor) }
    package func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        base.startDeadline(deadline + deadlineLag, onExpiry: expire)
    }
}

/// A client clock that never arms a deadline (and says each was cancelled in time): an SDK whose
/// per-attempt timeout never fires, so a request the server never answers is waited for forever.
package struct NoTimeoutClock: WrappingClock {
    package let base: any FrontmailScheduler
    package init(base: any FrontmailScheduler) { self.base = base }

    package func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        0
    }
    package func cancelDeadline(_ token: UInt64) -> Bool { true }
}
