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
