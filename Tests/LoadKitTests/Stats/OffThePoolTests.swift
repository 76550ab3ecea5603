import Foundation
import TestSupport
import Testing

@testable import LoadKit

@Suite("off the pool: synchronous work waited for without a cooperative thread")
struct OffThePoolTests {
    @Test("more blocking works than the pool has threads each wait for a task on the pool, which still runs")
    func poolStaysFree() async {
        // Each work blocks its thread until a task on the cooperative pool signals it. Had the works
        // held pool threads (as a plain call would), the pool (one thread per core) would be full and
        // the signalling task could not run: every wait would end at its limit and report false.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let signals = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        async let results = withTaskGroup(of: Bool.self) { group in
            for signal in signals {
                group.addTask {
                    await offThePool(signal) { signal in signal.wait(timeout: .now() + 120) == .success }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // The works start on threads of their own; this task, on the pool, releases them.
        try? await Task.sleep(for: .milliseconds(50))
        for signal in signals { signal.signal() }
        #expect(await results == Array(repeating: true, count: count))
    }

    @Test("the work's input is moved in and its output out")
    func values() async {
        let doubled = await offThePool([1, 2, 3]) { numbers in numbers.map { $0 * 2 } }
        #expect(doubled == [2, 4, 6])
    }
}

/// The label of the dedicated executor the caller runs on, if any.
private func currentQueueLabel() -> String? { DedicatedExecutor.currentLabel }

@Suite("the onItsOwnThread trait: each test on a queue of its own, off the cooperative pool", .onItsOwnThread)
struct OwnThreadTraitTests {
    @Test("a synchronous test runs on the test's own queue")
    func synchronous() { #expect(currentQueueLabel() == "test synchronous()") }

    @Test("an asynchronous test and its child tasks stay there", arguments: [1, 2])
    func asynchronous(_ argument: Int) async {
        async let child = currentQueueLabel()
        #expect(currentQueueLabel() == "test asynchronous(_:)" && argument > 0)
        #expect(await child == "test asynchronous(_:)")
    }
}

@Suite("without the trait a test runs on the cooperative pool")
struct WithoutOwnThreadTests {
    @Test("not on a queue of its own")
    func pool() { #expect(currentQueueLabel() == nil) }
}
