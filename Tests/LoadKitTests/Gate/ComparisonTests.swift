import Foundation
import Testing

@testable import LoadKit

@Suite("compare: the regression gate")
struct ComparisonTests {
    static func row(
        _ probe: String, _ metric: String, _ statistic: String, _ value: Double, scenario: String = "encoder"
    )
        -> SummaryRow
    {
        SummaryRow(scenario: scenario, probe: probe, metric: metric, statistic: statistic, value: value, unit: "u")
    }

    /// Scenario timings (judged by the global tolerance), an allocation count, a size and a defect count.
    static let baseline = [
        row("send", "throughput", "value", 1000, scenario: "s"),
        row("send", "latency", "p99", 10, scenario: "s"),
        row("small_form", "frontmail_value", "allocs_per_op", 3),
        row("small_form", "frontmail_value", "output_bytes", 400),
        row("idempotency", "duplicates", "value", 0, scenario: "brownout"),
    ]

    @Test("polarities")
    func polarities() {
        #expect(Comparison.polarity(Self.row("g", "s", "ops_per_s", 1)) == .higherIsBetter)
        #expect(Comparison.polarity(Self.row("g", "s", "ratio_vs_json_encoder", 1)) == .higherIsBetter)
        #expect(Comparison.polarity(Self.row("g", "s", "p99_us", 1)) == .lowerIsBetter)
        #expect(Comparison.polarity(Self.row("send", "latency", "p99", 1)) == .lowerIsBetter)
        #expect(Comparison.polarity(Self.row("idempotency", "lost", "value", 1)) == .lowerIsBetter)
        #expect(Comparison.polarity(Self.row("send", "sends", "value", 1)) == .informational)
        #expect(Comparison.polarity(Self.row("g", "s", "output_bytes", 1)) == .informational)
    }

    @Test("within tolerance: unchanged; slower beyond it: regression; faster beyond it: improvement")
    func verdicts() {
        var current = Self.baseline
        current[0].value = 960
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 0.05, perMetric: []).regressions.isEmpty)
        current[0].value = 900
        let slower = Comparison(baseline: Self.baseline, current: current, tolerance: 0.05, perMetric: [])
        #expect(slower.regressions.map(\.key) == ["s.send.throughput.value"])
        current[0].value = 1200
        current[1].value = 5
        let faster = Comparison(baseline: Self.baseline, current: current, tolerance: 0.05, perMetric: [])
        #expect(faster.regressions.isEmpty)
        #expect(faster.improvements.count == 2)
    }

    @Test("allocation counts and correctness metrics are strict, whatever the global tolerance")
    func strict() {
        var current = Self.baseline
        current[2].value = 4
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 10, perMetric: []).regressions.count == 1)
        current[2].value = 3
        current[4].value = 1
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 10, perMetric: []).regressions.count == 1)
        // A per-metric tolerance can loosen even a strict metric.
        current[4].value = 0
        current[2].value = 3.6
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 10, perMetric: []).regressions.count == 1)
        let loosened = Comparison(
            baseline: Self.baseline, current: current, tolerance: 0, perMetric: [("allocs_per_op", 0.25)])
        #expect(loosened.regressions.isEmpty)
    }

    @Test("an allocation count may move by a stray fraction per call, not by part of an allocation more")
    func allocationSlack() {
        func verdict(_ count: Double) -> Comparison.Verdict? {
            var current = Self.baseline
            current[2].value = count
            return Comparison(baseline: Self.baseline, current: current, tolerance: 0, perMetric: [])
                .lines.first { $0.key.hasSuffix("allocs_per_op") }?.verdict
        }
        #expect(MetricPolicy.allocations.slack == MetricPolicy.allocationSlack)
        #expect(verdict(3.04) == .unchanged)
        #expect(verdict(3 + MetricPolicy.allocationSlack) == .unchanged)
        #expect(verdict(2.96) == .unchanged)
        // one allocation in every third call is a regression; so is one in every call
        #expect(verdict(3.34) == .regression)
        #expect(verdict(4) == .regression)
        #expect(verdict(2) == .improvement)
        // the slack is the allocation counts' alone: a defect count has none
        var current = Self.baseline
        current[4].value = 0.2
        let defect = Comparison(baseline: Self.baseline, current: current, tolerance: 0, perMetric: [])
        #expect(defect.regressions.count == 1)
    }

    @Test("per-metric tolerances match consecutive key parts; a missing metric is a regression; n/a is not judged")
    func perMetricAndMissing() {
        var current = Self.baseline
        current[1].value = 14
        let loose = Comparison(
            baseline: Self.baseline, current: current, tolerance: 0.05,
            perMetric: [("send.latency.p99", 0.5)])
        #expect(loose.regressions.isEmpty)
        let missing = Comparison(
            baseline: Self.baseline, current: Array(current.dropFirst()), tolerance: 1, perMetric: [])
        #expect(missing.regressions.map(\.verdict) == [.missing])
        // Allocation counts need jemalloc: n/a is a warning, not a regression.
        current = Self.baseline
        current[2].value = .nan
        let unavailable = Comparison(baseline: Self.baseline, current: current, tolerance: 0, perMetric: [])
        #expect(unavailable.regressions.isEmpty)
        #expect(unavailable.lines.contains { $0.verdict == .notAvailable })
        #expect(unavailable.markdown().contains("| n/a |"))
        #expect(unavailable.markdown().contains("warning: 1 metrics were measured in the baseline and are n/a now"))
    }

    @Test("a tolerance is a factor, the same for both polarities")
    func symmetric() {
        // 2.5x slower: throughput 1000 → 400, time 10 → 25 ms. Both are 2.5x worse.
        var current = Self.baseline
        current[0].value = 400
        current[1].value = 25
        let strictEnough = Comparison(baseline: Self.baseline, current: current, tolerance: 1.4, perMetric: [])
        #expect(strictEnough.regressions.count == 2)
        let loose = Comparison(baseline: Self.baseline, current: current, tolerance: 1.6, perMetric: [])
        #expect(loose.regressions.isEmpty)
        #expect(Comparison.worseFactor(baseline: 0, current: 1, polarity: .lowerIsBetter) == .infinity)
    }

    @Test("--strict-only judges correctness and allocations, not timings")
    func strictOnly() {
        var current = Self.baseline
        current[0].value = 1
        current[1].value = 1000
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 0, perMetric: [], strictOnly: true)
                .regressions.isEmpty)
        current[4].value = 1
        #expect(
            Comparison(baseline: Self.baseline, current: current, tolerance: 0, perMetric: [], strictOnly: true)
                .regressions.count
                == 1)
    }
}
