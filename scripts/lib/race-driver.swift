// scripts/sanitize.sh --self-test: compiled with the SDK's sources (one of them planted with a data
// race) under ThreadSanitizer; drives the SDK's shared state from several threads at once.
import Foundation

@main
enum RaceDriver {
    static func main() {
        let budget = RetryBudget(
            capacity: 100_000, retryCost: 1, timeoutRetryCost: 1, successReward: 1, refundsRetriedSuccess: true)
        let bucket = RetryBucket(budget)
        let error = FrontmailError(code: .internalError, message: "503", status: 503)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 {
                if let cost = bucket.acquire(after: error) { bucket.succeeded(lastRetryCost: cost) }
            }
        }
        print("level \(bucket.level)")
    }
}
