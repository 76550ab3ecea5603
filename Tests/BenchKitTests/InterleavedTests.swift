import BenchKit
import LoadKit
import Synchronization
import Testing

/// A clock that only the workloads move: each call of a workload advances it by that workload's
/// cost, so every figure below is exact and nothing depends on the machine.
final class ManualClock: Sendable {
    private let now = Mutex<UInt64>(0)
    /// Every workload run, in order (to check the interleaving).
    private let log = Mutex<[String]>([])

    func read() -> UInt64 { now.withLock { $0 } }
    func advance(_ nanoseconds: UInt64) { now.withLock { $0 += nanoseconds } }
    func note(_ name: String) { log.withLock { $0.append(name) } }
    var calls: [String] { log.withLock { $0 } }

    func workload(_ name: String, costing nanoseconds: UInt64) -> Workload {
        Workload(name) {
            self.advance(nanoseconds)
            self.note(name)
        }
    }
}

@Suite("interleaved timing: ratios, spreads and the positive control")
struct InterleavedTests {
    static func runner(_ clock: ManualClock, rounds: Int = 9) -> InterleavedRunner {
        InterleavedRunner(
            rounds: rounds, slicesPerRound: 10, sliceNanoseconds: 100_000, allocationIterations: 0,
            clock: { clock.read() })
    }

    @Test("the ratio of two workloads is the ratio of their costs, with no spread")
    func exactRatio() async {
        let clock = ManualClock()
        let result = await Self.runner(clock).measure(
            group: "g", [clock.workload("fast", costing: 100), clock.workload("slow", costing: 1_000)])
        let ratio = result.ratio("fast", against: "slow")
        #expect(ratio.rounds.count == 9)
        #expect(ratio.value == 10)
        #expect(ratio.spread == 0)
        #expect(result.result("fast")?.time.value(at: 0.5) == 100)
        #expect(result.result("fast")?.operations ?? 0 > 0)
        #expect(result.ratio("fast", against: "none").value.isNaN)
    }

    @Test("slices alternate between the workloads, so drift hits both")
    func interleaves() async {
        let clock = ManualClock()
        _ = await Self.runner(clock, rounds: 1).measure(
            group: "g", [clock.workload("a", costing: 50_000), clock.workload("b", costing: 50_000)])
        // After sizing (a's batches, then b's), the timed slices are one batch each: 2 calls of 50 µs.
        let timed = Array(clock.calls.suffix(40))
        let slices = stride(from: 0, to: timed.count, by: 2).map { timed[$0] }
        #expect(slices.count == 20)
        #expect(slices.filter { $0 == "a" }.count == 10)
        // Never more than two slices of the same workload in a row.
        #expect(!zip(zip(slices, slices.dropFirst()), slices.dropFirst(2)).contains { $0.0 == $0.1 && $0.1 == $1 })
    }

    @Test("a first call that pays a one-time cost does not size the batch")
    func coldFirstCall() async {
        let clock = ManualClock()
        var calls = 0
        // The first call costs 1 ms (ten slices), every later one 1 µs, as a table built on first use.
        let cold = Workload("cold") {
            calls += 1
            clock.advance(calls == 1 ? 1_000_000 : 1_000)
        }
        let result = await Self.runner(clock).measure(group: "g", [cold, clock.workload("steady", costing: 1_000)])
        // Sized from the first call, each slice would be one operation; warmed up first, it is a
        // slice's worth (100 µs of 1 µs calls), as the steady workload's.
        let operations = result.result("cold")?.operations ?? 0
        #expect(operations == result.result("steady")?.operations)
        #expect(operations >= 9 * 10 * 100)
        #expect(result.ratio("cold", against: "steady").value == 1)
    }

    @Test("a slice the scheduler interrupted does not move the figure")
    func interruptedSlices() async {
        let clock = ManualClock()
        var count = 0
        let disturbed = Workload("disturbed") {
            clock.advance(100)
            count += 1
            // Every 20,011th call (about one slice in twenty) stalls for 5 ms, as a preempted thread would.
            if count % 20_011 == 0 { clock.advance(5_000_000) }
        }
        let result = await Self.runner(clock).measure(group: "g", [disturbed, clock.workload("steady", costing: 200)])
        let ratio = result.ratio("disturbed", against: "steady")
        // Stalls did land in timed slices (their per-operation time is far above 100 ns)...
        #expect(result.result("disturbed")?.time.max ?? 0 > 1_000)
        // ...and the figure ignores them.
        #expect(ratio.value == 2)
        #expect(ratio.spread == 0)
    }

    @Test("the positive control is slower by the factor it was built with")
    func control() async {
        let clock = ManualClock()
        let real = clock.workload("writer", costing: 1_000)
        let result = await Self.runner(clock).measure(
            group: "g", [real, clock.workload("baseline", costing: 10_000), real.slowed(by: 1.3)])
        let control = PositiveControl(group: "g", subject: "writer", baseline: "baseline", built: 1.3, in: result)
        #expect(abs(control.measured - 1.3) < 0.01)
        #expect(control.smallestDetectable == 1 + RatioGate.floor)
        #expect(control.visible)
        let rows = control.rows(benchmark: "b")
        #expect(rows.contains { $0.metric == "writer_control" && $0.statistic == "ratio_vs_baseline" })
        #expect(rows.contains { $0.statistic == "control_slowdown" && $0.value == 1.3 })
    }

    /// The gate end to end on measured rows: a baseline from three runs of the correct code, then
    /// the same code (passes) and a writer doing 1.3x the work (flagged).
    @Test("end to end: the gate passes the same code and flags a writer doing 1.3x the work")
    func gate() async {
        func benchmarkRun(writerCost: UInt64, jitter: UInt64) async -> [SummaryRow] {
            let clock = ManualClock()
            var calls: UInt64 = 0
            // Run-to-run noise: the writer's cost wobbles by up to `jitter` ns from round to round.
            let writer = Workload("frontmail_value") {
                calls += 1
                clock.advance(writerCost + (calls / 5_000) % (jitter + 1))
            }
            let result = await Self.runner(clock).measure(
                group: "small_form", [writer, clock.workload("json_encoder", costing: 10_000), writer.slowed(by: 1.3)])
            let check = RatioCheck(
                group: "small_form", subject: "frontmail_value", baseline: "json_encoder",
                estimate: result.ratio("frontmail_value", against: "json_encoder"))
            let control = PositiveControl(
                group: "small_form", subject: "frontmail_value", baseline: "json_encoder", built: 1.3, in: result)
            return check.rows(benchmark: "encoder") + control.rows(benchmark: "encoder")
        }
        var runs: [[SummaryRow]] = []
        for jitter: UInt64 in [10, 20, 30] { runs.append(await benchmarkRun(writerCost: 1_000, jitter: jitter)) }
        let baseline = BaselineMerge.merge(runs)
        let same = Comparison(
            baseline: baseline, current: await benchmarkRun(writerCost: 1_000, jitter: 25), tolerance: 0, perMetric: [])
        #expect(same.regressions.isEmpty)
        #expect(same.controls.map(\.flagged) == [true])
        let planted = Comparison(
            baseline: baseline, current: await benchmarkRun(writerCost: 1_300, jitter: 25), tolerance: 0, perMetric: [])
        #expect(planted.regressions.map(\.key) == ["encoder.small_form.frontmail_value.ratio_vs_json_encoder"])
    }
}
