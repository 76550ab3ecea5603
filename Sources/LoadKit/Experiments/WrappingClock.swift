import Foundation
import Frontmail

/// A client clock built on another: everything it does not say otherwise is `base`'s, so a broken
/// clock in a test states only what it breaks.
protocol WrappingClock: FrontmailScheduler {
    var base: any FrontmailScheduler { get }
}

extension WrappingClock {
    func now() -> TimeInterval { base.now() }
    func wallNow() -> Date { base.wallNow() }
    func sleep(seconds: TimeInterval) async throws { try await base.sleep(seconds: seconds) }
    func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        base.startDeadline(deadline, onExpiry: expire)
    }
    func cancelDeadline(_ token: UInt64) -> Bool { base.cancelDeadline(token) }
    func startExchange(
        _ transport: any FrontmailTransport, _ request: FrontmailHTTPRequest
    ) -> Task<Result<FrontmailHTTPResponse, any Error>, Never> {
        base.startExchange(transport, request)
    }
}
