import Foundation
import Testing

@testable import Frontmail

@Suite("cancellable sleep")
struct TimerSleepTests {
    @Test("a sleep ends, and never before its time")
    func sleepsAtLeast() async throws {
        let start = Date()
        try await cancellableSleep(seconds: 0.05)
        #expect(Date().timeIntervalSince(start) >= 0.05)
        try await cancellableSleep(seconds: 0)
    }

    @Test("cancelling a long sleep throws CancellationError (the test would hang otherwise)")
    func cancelledWhileSleeping() async throws {
        let sleeper = Task { () -> Bool in
            do {
                try await cancellableSleep(seconds: 3600)
                return false
            } catch {
                return error is CancellationError
            }
        }
        try await Task.sleep(nanoseconds: 10_000_000)
        sleeper.cancel()
        #expect(await sleeper.value)
    }

    @Test("a Task cancelled before it sleeps does not sleep")
    func cancelledBeforeSleeping() async {
        let sleeper = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await cancellableSleep(seconds: 3600)
                return false
            } catch {
                return error is CancellationError
            }
        }
        #expect(await sleeper.value)
    }

    @Test("many concurrent sleeps cancelled at random moments all end")
    func manyCancelled() async {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<2000 {
                group.addTask {
                    await withTaskGroup(of: Void.self) { inner in
                        inner.addTask { try? await cancellableSleep(seconds: 3600) }
                        if index % 2 == 0 { await Task.yield() }
                        inner.cancelAll()
                    }
                    return true
                }
            }
            var ended = 0
            for await value in group where value { ended += 1 }
            #expect(ended == 2000)
        }
    }

    @Test("waitUntilCancelled returns only through cancellation")
    func waitsForCancellation() async {
        let waiter = Task { () -> Bool in
            do {
                try await waitUntilCancelled()
            } catch {
                return error is CancellationError
            }
        }
        waiter.cancel()
        #expect(await waiter.value)
    }
}

@Suite("the shared timer")
struct TimerWheelTests {
    @Test("sleeps of different lengths started out of order each end, none before its time")
    func outOfOrder() async throws {
        let start = Date()
        let lengths = [0.08, 0.02, 0.05, 0.01, 0.03]
        let ends = try await withThrowingTaskGroup(of: (Double, Double).self) { group in
            for length in lengths {
                group.addTask {
                    try await cancellableSleep(seconds: length)
                    return (length, Date().timeIntervalSince(start))
                }
            }
            var ends: [(Double, Double)] = []
            for try await end in group { ends.append(end) }
            return ends
        }
        #expect(ends.count == lengths.count)
        for (length, elapsed) in ends { #expect(elapsed >= length) }
    }

    @Test("cancelled sleeps leave nothing behind in the timer; due ones fire")
    func cancelledAreRemoved() async throws {
        let scheduler = SleepScheduler()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try? await scheduler.sleep(nanoseconds: index % 5 == 0 ? 1_000_000 : 3_600_000_000_000)
                }
            }
            // The 100 short sleeps fire; the 400 long ones stay (waited for, not timed: a loaded
            // machine may take longer than a few milliseconds to start 500 tasks).
            for _ in 0..<1000 where scheduler.pending != 400 { try? await Task.sleep(nanoseconds: 10_000_000) }
            #expect(scheduler.pending == 400)
            group.cancelAll()
        }
        #expect(scheduler.pending == 0)
    }
}
