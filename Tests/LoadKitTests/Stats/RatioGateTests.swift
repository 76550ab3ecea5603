import Foundation
import Testing

@testable import LoadKit

@Suite("the ratio gate: same-run ratios judged by their measured noise, with a positive control")
struct RatioGateTests {
    static func row(_ metric: String, _ statistic: String, _ value: Double, probe: String = "small_form")
        -> SummaryRow
    {
        SummaryRow(scenario: "encoder", probe: probe, metric: metric, statistic: statistic, value: value, unit: "x")
    }

    /// A benchmark run: the writer's ratio against JSONEncoder with its spread, the 1.3x control's
    /// ratio, and absolute timings.
    static func run(ratio: Double, spread: Double, control: Double? = nil, opsPerSecond: Double = 1e6) -> [SummaryRow] {
        var rows = [
            row("frontmail_value", "ratio_vs_json_encoder", ratio),
            row("frontmail_value", "spread_vs_json_encoder", spread),
            row("frontmail_value", "ops_per_s", opsPerSecond),
            row("frontmail_value", "p50_us", 1e6 / opsPerSecond),
        ]
        if let control {
            rows += [
                row("frontmail_value_control", "ratio_vs_json_encoder", control),
                row("frontmail_value_control", "spread_vs_json_encoder", spread),
                row("frontmail_value_control", "control_slowdown", 1.3),
            ]
        }
        return rows
    }

    @Test("estimates: the median of the rounds; the spread is robust to one disturbed round; NaN without enough rounds")
    func estimates() {
        let steady = RatioEstimate(rounds: [10, 10.1, 9.9, 10, 10.2, 9.8, 10])
        #expect(steady.value == 10)
        #expect(abs(steady.spread - 1.4826 * 0.1 / 10) < 1e-12)
        // One round disturbed by a factor of two moves neither figure much.
        let disturbed = RatioEstimate(rounds: [10, 10.1, 9.9, 10, 10.2, 9.8, 5])
        #expect(disturbed.value == 10)
        #expect(disturbed.spread < 0.02)
        #expect(RatioEstimate(rounds: [1, 2]).spread.isNaN)
        #expect(RatioEstimate(rounds: [.nan, 1, .infinity]).rounds == [1])
        #expect(RatioEstimate(rounds: []).value.isNaN)
        #expect(RatioEstimate(rounds: [1, 2, 3, 4]).value == 2.5)
    }

    @Test("tolerance: 3x the larger spread, at least 2%, nil when no run measured one")
    func tolerance() {
        #expect(RatioGate.tolerance(baselineSpread: 0.02, currentSpread: 0.05) == 0.15000000000000002)
        #expect(RatioGate.tolerance(baselineSpread: 0.001, currentSpread: nil) == RatioGate.floor)
        #expect(RatioGate.tolerance(baselineSpread: nil, currentSpread: .nan) == nil)
    }

    @Test("a 1.3x slower writer is flagged; the same code measured again is not")
    func flagsSlowdown() {
        let baseline = Self.run(ratio: 10, spread: 0.02)
        let same = Comparison(
            baseline: baseline, current: Self.run(ratio: 9.6, spread: 0.03), tolerance: 0, perMetric: [])
        #expect(same.regressions.isEmpty)
        #expect(same.ratioGates.first?.tolerance == 0.09)
        let slower = Comparison(
            baseline: baseline, current: Self.run(ratio: 10 / 1.3, spread: 0.03), tolerance: 0, perMetric: [])
        #expect(slower.regressions.map(\.key) == ["encoder.small_form.frontmail_value.ratio_vs_json_encoder"])
        #expect(slower.markdown().contains("| 1.09x | regression |"))
        // Noise as large as the change: the gate cannot tell, and says how large a change it could see.
        let noisy = Comparison(
            baseline: baseline, current: Self.run(ratio: 10 / 1.3, spread: 0.12), tolerance: 0, perMetric: [])
        #expect(noisy.regressions.isEmpty)
        #expect(noisy.markdown().contains("| 1.36x | unchanged |"))
        // A per-metric tolerance still wins over the measured one.
        let told = Comparison(
            baseline: baseline, current: Self.run(ratio: 9.6, spread: 0.03), tolerance: 0,
            perMetric: [("ratio_vs_json_encoder", 0.01)])
        #expect(told.regressions.count == 1)
    }

    @Test("without a spread a ratio falls back to the global tolerance")
    func withoutSpread() {
        let baseline = [Self.row("frontmail_value", "ratio_vs_3_allocations", 1)]
        let current = [Self.row("frontmail_value", "ratio_vs_3_allocations", 0.9)]
        #expect(Comparison(baseline: baseline, current: current, tolerance: 0.05, perMetric: []).regressions.count == 1)
        #expect(Comparison(baseline: baseline, current: current, tolerance: 0.2, perMetric: []).regressions.isEmpty)
    }

    @Test("absolute benchmark timings only warn, and only beyond 2x")
    func absoluteTimingsWarn() {
        let baseline = Self.run(ratio: 10, spread: 0.02, opsPerSecond: 1e6)
        let halfAsFast = Comparison(
            baseline: baseline, current: Self.run(ratio: 10, spread: 0.02, opsPerSecond: 0.6e6), tolerance: 0,
            perMetric: [])
        #expect(halfAsFast.regressions.isEmpty)
        #expect(halfAsFast.warnings.isEmpty)
        let grossly = Comparison(
            baseline: baseline, current: Self.run(ratio: 10, spread: 0.02, opsPerSecond: 0.3e6), tolerance: 0,
            perMetric: [])
        #expect(grossly.regressions.isEmpty)
        #expect(grossly.warnings.count == 2)
        #expect(grossly.markdown().contains("2 absolute timings changed beyond the gross tolerance"))
    }

    @Test("a positive control the gate can see passes; one it cannot see fails the comparison")
    func positiveControl() {
        let baseline = Self.run(ratio: 10, spread: 0.02)
        let visible = Comparison(
            baseline: baseline, current: Self.run(ratio: 10, spread: 0.02, control: 10 / 1.3), tolerance: 0,
            perMetric: [])
        #expect(visible.regressions.isEmpty)
        #expect(visible.controls.map(\.flagged) == [true])
        #expect(visible.controls.first?.built == 1.3)
        #expect(visible.markdown().contains("flagged (the gate sees it)"))
        // The control is not judged against the baseline's control, only against the real workload.
        #expect(!visible.lines.contains { $0.key.contains("_control") })
        let blind = Comparison(
            baseline: baseline, current: Self.run(ratio: 10, spread: 0.15, control: 10 / 1.3), tolerance: 0,
            perMetric: [])
        #expect(blind.regressions.map(\.verdict) == [.blind])
        #expect(blind.markdown().contains("NOT FLAGGED"))
        let warned = Comparison(
            baseline: baseline, current: Self.run(ratio: 10, spread: 0.15, control: 10 / 1.3), tolerance: 0,
            perMetric: [], blindControlsFail: false)
        #expect(warned.regressions.isEmpty)
        #expect(warned.warnings.count == 1)
        #expect(warned.markdown().contains("NOT FLAGGED"))
    }

    @Test("another machine (a reference over 25 % away): a ratio judged only past 50 % worse, no control")
    func otherMachine() {
        func run(ratio: Double, reference: Double, control: Double? = nil) -> [SummaryRow] {
            Self.run(ratio: ratio, spread: 0.02, control: control) + [Self.row("json_encoder", "ops_per_s", reference)]
        }
        let baseline = run(ratio: 10, reference: 150_000)
        // The same machine (the reference within 25 %): a ratio 20 % lower is a regression.
        let sameMachine = Comparison(
            baseline: baseline, current: run(ratio: 8, reference: 140_000, control: 8 / 1.3), tolerance: 0,
            perMetric: [])
        #expect(sameMachine.regressions.map(\.verdict) == [.regression])
        #expect(sameMachine.controls.map(\.flagged) == [true])
        // A machine three times slower or faster, where unchanged code's ratio moved 20 % (as the
        // encoder's did at 0.30-0.47x): printed, not judged, nor its control; allocation counts
        // would still be.
        for reference in [50_000.0, 450_000] {
            let other = Comparison(
                baseline: baseline, current: run(ratio: 8, reference: reference, control: 8 / 1.3), tolerance: 0,
                perMetric: [])
            // (A faster machine's absolute timings still show as improvements: they only ever inform.)
            #expect(other.regressions.isEmpty && !other.improvements.contains { $0.spreads != nil })
            #expect(
                other.lines.filter { $0.verdict == .otherMachine }.map(\.key) == [
                    "encoder.small_form.frontmail_value.ratio_vs_json_encoder"
                ])
            #expect(other.controls.isEmpty)
            #expect(other.markdown().contains("1 same-run ratios judged only for a change over 50%"))
            // A ratio 3.1x worse (a batch sized from one cold call) is a regression on any machine.
            let gross = Comparison(
                baseline: baseline, current: run(ratio: 10 / 3.1, reference: reference, control: 10 / 3.1 / 1.3),
                tolerance: 0, perMetric: [])
            #expect(gross.regressions.map(\.key) == ["encoder.small_form.frontmail_value.ratio_vs_json_encoder"])
            #expect(gross.regressions.first?.tolerance == Comparison.crossMachineTolerance)
            #expect(gross.controls.isEmpty)
            // Just within the cross-machine tolerance: not judged.
            let edge = Comparison(
                baseline: baseline, current: run(ratio: 10 / 1.49, reference: reference), tolerance: 0, perMetric: [])
            #expect(edge.regressions.isEmpty)
        }
        // Without the reference's speed in either run the ratio is judged as before.
        let unknown = Comparison(
            baseline: Self.run(ratio: 10, spread: 0.02), current: run(ratio: 6, reference: 50_000), tolerance: 0,
            perMetric: [])
        #expect(unknown.regressions.map(\.verdict) == [.regression])
    }

    @Test("a baseline from several runs: medians, and spreads that cover the differences between runs")
    func baselineMerge() {
        let runs = [
            Self.run(ratio: 10, spread: 0.01), Self.run(ratio: 10.6, spread: 0.005), Self.run(ratio: 9.8, spread: 0.01),
        ]
        let merged = BaselineMerge.merge(runs)
        let ratio = merged.first { $0.statistic == "ratio_vs_json_encoder" }
        let spread = merged.first { $0.statistic == "spread_vs_json_encoder" }
        #expect(ratio?.value == 10)
        // Between runs: half the range, (10.6 - 9.8) / 2 / 10 = 0.04, larger than any run's own.
        #expect(abs((spread?.value ?? 0) - 0.04) < 1e-12)
        let steady = BaselineMerge.merge([
            Self.run(ratio: 10, spread: 0.04), Self.run(ratio: 10, spread: 0.01), Self.run(ratio: 10, spread: 0.01),
        ])
        #expect(steady.first { $0.statistic == "spread_vs_json_encoder" }?.value == 0.04)
        #expect(merged.count == runs[0].count)
    }

}
