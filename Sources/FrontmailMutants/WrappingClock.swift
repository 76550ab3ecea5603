import Foundation
import Frontmail

/// A client clock built on another: everything it does not say otherwise is `base`'s, so a broken
/// clock in a test states only what it breaks.
package protocol WrappingClock: FrontmailScheduler {
    var base: any FrontmailScheduler { get }
}

extension WrappingClock {
    package func now() -> TimeInterval { base.now() }
    package func wallNow() -> Date { base.wallNow() }
    package func sleep(seconds: TimeInterval) async throws { try await base.sleep(seconds: seconds) }
    package func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        base.startDeadline(deadline, onExpiry: expire)
    }
    package func cancelDeadline(_ token: UInt64) -> Bool { base.cancelDeadline(token) }
    package func startExchange(
        _ transport: any FrontmailTransport, _ request: FrontmailHTTPRequest
    ) -> Task<Result<FrontmailHTTPResponse, any Error>, Never> {
        base.startExchange(transport, request)
    }
}
