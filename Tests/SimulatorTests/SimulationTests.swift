import FakeFrontmail
import Foundation
import Frontmail
import Synchronization
import Testing

@testable import Simulator

/// The deterministic scheduler: virtual time moves only when every task waits, to the earliest
/// timer, exactly; the same program gives the same trace; work that escapes is an error that
/// names it, never a silent mix of clocks.
@Suite("simulation: virtual time and the deterministic scheduler")
struct SimulationTests {
    /// An append-only list of what happened, written from the simulation's one thread.
    final class Trace: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Answers after a sleep on the virtual clock (cancelled: throws).
    struct SleepingTransport: FrontmailTransport {
        let clock: VirtualClock
        let seconds: Double
        func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
            try await clock.sleep(seconds: seconds)
            return FrontmailHTTPResponse(status: 204, headers: FrontmailHTTPHeaders(fields: []), body: Data())
        }
    }

    final class Random: Sendable {
        private let state = Mutex(SeededRandom(seed: 7))
        func unit() -> Double { state.withLock { $0.unit() } }
    }

    @Test("sleeps wake in deadline order at their exact virtual times; an hour costs no wall time")
    func sleepsAreExact() async throws {
        let (woke, figures) = try await Simulation.run { clock -> [String] in
            let trace = Trace()
            await withTaskGroup(of: Void.self) { group in
                for (name, seconds) in [("c", 3600.0), ("a", 0.3), ("b", 1.5), ("a2", 0.3)] {
                    group.addTask {
                        try? await clock.sleep(seconds: seconds)
                        trace.add("\(name)@\(clock.now())")
                    }
                }
            }
            return trace.all
        }
        #expect(woke == ["a@0.3", "a2@0.3", "b@1.5", "c@3600.0"])
        #expect(figures.virtualSeconds == 3600)
        #expect(figures.timers == 4)
    }

    @Test("a deadline fires exactly at its time; a cancelled one never fires; sleeps see cancellation")
    func deadlines() async throws {
        let (trace, _) = try await Simulation.run { clock -> [String] in
            let trace = Trace()
            _ = clock.startDeadline(2.5) { trace.add("fired@\(clock.now())") }
            let cancelled = clock.startDeadline(1) { trace.add("cancelled deadline fired") }
            #expect(clock.cancelDeadline(cancelled))
            let sleeper = Task(executorPreference: clock.executor) {
                do {
                    try await clock.sleep(seconds: 100)
                    trace.add("slept")
                } catch {
                    trace.add("sleep cancelled@\(clock.now())")
                }
            }
            try await clock.sleep(seconds: 3)
            sleeper.cancel()
            await sleeper.value
            return trace.all
        }
        #expect(trace == ["fired@2.5", "sleep cancelled@3.0"])
    }

    /// Many tasks racing sleeps, deadlines and yields: the order they interleave in is the run's own.
    static func busyProgram(_ clock: VirtualClock) async -> [String] {
        let trace = Trace()
        let random = Random()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<50 {
                group.addTask {
                    for step in 0..<4 {
                        let wait = random.unit() * 0.01
                        if step % 2 == 0 { await Task.yield() }
                        let exchange = clock.startExchange(
                            SleepingTransport(clock: clock, seconds: wait),
                            FrontmailHTTPRequest(method: "POST", url: URL(string: "http://x.invalid/")!))
                        let token = clock.startDeadline(clock.now() + 0.005) { exchange.cancel() }
                        _ = await exchange.value
                        _ = clock.cancelDeadline(token)
                        trace.add("\(task).\(step)@\(clock.now())")
                    }
                }
            }
        }
        return trace.all
    }

    @Test("the same program gives the same trace, run after run")
    func deterministic() async throws {
        let first = try await Simulation.run { await Self.busyProgram($0) }.value
        #expect(first.count == 200)
        for _ in 0..<3 {
            let again = try await Simulation.run { await Self.busyProgram($0) }.value
            #expect(again == first)
        }
    }

    @Test("a detached task that sleeps on the virtual clock fails the run, naming the call and the thread")
    func detachedEscape() async throws {
        let error = await #expect(throws: SimulationError.self) {
            // A long grace: on a machine busy with other tests the detached task may start late
            // (past 60 s beside a CPU hog and a build), and the run must wait for it rather than
            // call the wait a deadlock. The grace only ends a run that would hang.
            _ = try await Simulation.run(stallGrace: 600) { clock in
                await Task.detached { try? await clock.sleep(seconds: 1) }.value
            }
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("the virtual clock's sleep was called from"), "\(text)")
    }

    @Test("a real sleep inside the run fails it: its wake-up comes from outside the simulation")
    func realSleepEscape() async throws {
        let error = await #expect(throws: SimulationError.self) {
            // The real sleep's wake-up must come to be named; beside a CPU hog it came after the
            // default 2 s grace, and the run was called deadlocked instead.
            _ = try await Simulation.run(stallGrace: 600) { clock in
                try await clock.sleep(seconds: 1)
                try await Task.sleep(nanoseconds: 1_000_000)
            }
        }
        #expect(error.map { "\($0)" }?.contains("a job of the run was enqueued from") == true)
    }

    @Test("a continuation resumed from a Dispatch queue fails the run")
    func dispatchEscape() async throws {
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.run(stallGrace: 600) { clock in
                try await clock.sleep(seconds: 0.5)
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Later than the suspension: a resume that comes before the task has
                    // suspended is taken on the loop's thread and needs no job from outside.
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { continuation.resume() }
                }
            }
        }
        #expect(error.map { "\($0)" }?.contains("virtual time 0.500000000 s") == true)
    }

    @Test("every task waiting with no timer pending is a deadlock, not a hang")
    func deadlock() async throws {
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.run(stallGrace: 0.05) { clock in
                try await clock.sleep(seconds: 2)
                // Nothing ever resumes this until the run is cancelled.
                try await waitUntilCancelled()
            }
        }
        #expect(error.map { "\($0)" }?.contains("deadlock at virtual time 2.000000000 s") == true)
    }

    @Test("cancelling the caller cancels the run: sleepers wake with CancellationError")
    func callerCancellation() async throws {
        let started = Trace()
        let run = Task {
            try await Simulation.run { clock -> Bool in
                started.add("in")
                // Real waiting happens outside: the run is parked on a day-long sleep.
                do {
                    try await clock.sleep(seconds: 86_400)
                    return false
                } catch {
                    return error is CancellationError
                }
            }
        }
        while started.all.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        run.cancel()
        // The sleep may end by cancellation (true) or the day may pass first (false): either way
        // the run ends, and does not report an escape for the canceller's thread.
        _ = try await run.value
    }

    @Test(
        "cancelling the caller ends a run whose tasks all sleep in a group (their handlers take the scheduler's lock)")
    func callerCancellationOfSleepingGroup() async throws {
        let asleep = Trace()
        let run = Task {
            try await Simulation.run { clock -> Int in
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            asleep.add("\(index)")
                            try? await clock.sleep(seconds: 86_400)
                        }
                    }
                    // Work that takes no virtual time keeps the run from ever being quiescent, so
                    // the sleepers stay parked (a load in full swing, as when a user presses Ctrl-C).
                    group.addTask {
                        while !Task.isCancelled { await Task.yield() }
                    }
                }
                return 0
            }
        }
        while asleep.all.count < 8 { try await Task.sleep(nanoseconds: 1_000_000) }
        // Every sleeper is (about to be) parked on its sleep while the spinner runs.
        try await Task.sleep(nanoseconds: 50_000_000)
        let ended = Trace()
        let waiter = Task {
            _ = try? await run.value
            ended.add("ended")
        }
        // From a thread of its own: a canceller that deadlocks must not take the test with it.
        Thread.detachNewThread { run.cancel() }
        // The limit only ends a deadlock: on a loaded 2-core runner the waiter can wait tens of
        // seconds for a thread of the pool (20 s once ended a run that did end).
        let start = Date()
        while ended.all.isEmpty, Date().timeIntervalSince(start) < 600 { try await Task.sleep(nanoseconds: 5_000_000) }
        // Cancelled under the scheduler's lock, the sleepers' handlers waited for it forever.
        #expect(ended.all == ["ended"])
        _ = waiter
    }

    @Test("a scheduler that advances before quiescence changes what a program observes")
    func earlyAdvanceIsVisible() async throws {
        @Sendable func program(_ clock: VirtualClock) async -> Double {
            await withTaskGroup(of: Double?.self) { group in
                group.addTask {
                    try? await clock.sleep(seconds: 1)
                    return nil
                }
                group.addTask {
                    // Work that takes no virtual time: many jobs, no waits.
                    for _ in 0..<100 { await Task.yield() }
                    return clock.now()
                }
                var seen = 0.0
                for await value in group { if let value { seen = value } }
                return seen
            }
        }
        let right = try await Simulation.run { await program($0) }.value
        let early = try await Simulation.run(advanceEvery: 1) { await program($0) }.value
        #expect(right == 0)
        #expect(early == 1)
    }
}
