import Foundation
import Testing

@testable import Frontmail

/// The SDK's shared state taken by real threads at once (what no simulation runs): every outcome
/// below is fixed whatever the interleaving, so a lost update or an unlocked access fails it (and
/// scripts/sanitize.sh runs it under ThreadSanitizer, which names a data race even when the count
/// comes out right).
@Suite("real threads: the retry bucket, the timer and the entropy pool under contention")
struct RealThreadTests {
    /// Counts under a lock of the test's own.
    final class Tally: @unchecked Sendable {  // every access is under `lock`
        private let lock = NSLock()
        private var value = 0
        func add(_ amount: Int) {
            lock.lock()
            value += amount
            lock.unlock()
        }
        var total: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    @Test("8 threads asking for 20,000 retries each from a bucket of 100,000: exactly 100,000 are granted")
    func bucketTakes() {
        let budget = RetryBudget(
            capacity: 1_000_000, retryCost: 10, timeoutRetryCost: 10, successReward: 0, refundsRetriedSuccess: false)
        let bucket = RetryBucket(budget)
        let granted = Tally()
        let error = FrontmailError(code: .internalError, message: "503", status: 503)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var mine = 0
            for _ in 0..<20_000 where bucket.acquire(after: error) != nil { mine += 1 }
            granted.add(mine)
        }
        #expect(granted.total == 100_000)
        #expect(bucket.level == 0)
    }

    @Test("8 threads taking and refunding at once: the level ends where it began, never past capacity")
    func bucketTakesAndRefunds() {
        let budget = RetryBudget(
            capacity: 800, retryCost: 5, timeoutRetryCost: 10, successReward: 1, refundsRetriedSuccess: true)
        let bucket = RetryBucket(budget)
        let error = FrontmailError(code: .timeout, message: "timeout")
        let overfull = Tally()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50_000 {
                guard let cost = bucket.acquire(after: error) else { continue }
                bucket.succeeded(lastRetryCost: cost)
                if bucket.level > 800 { overfull.add(1) }
            }
        }
        #expect(bucket.level == 800)
        #expect(overfull.total == 0)
    }

    /// Sleeps of an hour on the SDK's Dispatch timer, half cancelled at once (often before the
    /// sleep has put its entry in the timer), half from another task: every sleep ends and the
    /// timer is left empty. A sleep that misses its cancel would wait the hour: the test gives up
    /// after 60 s and names how many are still open, instead of hanging.
    @Test("2,000 hour-long sleeps cancelled from every side end at once, and the timer is left empty")
    func timerCancels() async throws {
        let scheduler = SleepScheduler()
        let ended = Tally()
        let count = 2_000
        for index in 0..<count {
            let task = Task {
                try? await scheduler.sleep(nanoseconds: 3_600_000_000_000)
                ended.add(1)
            }
            if index.isMultiple(of: 2) {
                task.cancel()
            } else {
                Task.detached { task.cancel() }
            }
        }
        var waited = 0
        while ended.total < count, waited < 6_000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(ended.total == count, "\(count - ended.total) sleeps still open, \(scheduler.pending) timers pending")
        #expect(scheduler.pending == 0)
    }

    #if os(Linux)
        /// Random 128-bit pairs never repeat (a collision in 16,000 draws has odds near 2^-100); a
        /// pair handed out twice, or read after it was erased (zeros), is a lost update.
        @Test("8 threads drawing from the entropy pool: 16,000 distinct pairs, none erased")
        func entropyPool() throws {
            try #require(EntropyPool.take16() != nil, "the pool is available on this kernel")
            let lock = NSLock()
            nonisolated(unsafe) var all: [UInt64: UInt64] = [:]
            let zeros = Tally()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                var mine: [(UInt64, UInt64)] = []
                for _ in 0..<2_000 {
                    if let pair = EntropyPool.take16() { mine.append(pair) }
                }
                zeros.add(mine.filter { $0 == (0, 0) }.count)
                lock.lock()
                for (high, low) in mine { all[high ^ low.rotateLeft(17)] = low }
                lock.unlock()
            }
            #expect(all.count == 16_000)
            #expect(zeros.total == 0)
        }
    #endif
}

extension UInt64 {
    fileprivate func rotateLeft(_ bits: UInt64) -> UInt64 { self << bits | self >> (64 - bits) }
}
