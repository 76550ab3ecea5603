import Foundation
import LoadKit
import Testing

@testable import BenchKit

@Suite("allocation pass: timings on the system allocator, counts from a pass under jemalloc")
struct AllocationPassTests {
    static func row(_ probe: String, _ metric: String, _ statistic: String, _ value: Double) -> SummaryRow {
        SummaryRow(scenario: "encoder", probe: probe, metric: metric, statistic: statistic, value: value, unit: "x")
    }

    @Test("the library is found at run time: an explicit path, the usual places, or not at all")
    func library() {
        let none: (String) -> Bool = { _ in false }
        #expect(AllocationPass.jemallocLibrary(environment: [:], exists: none) == nil)
        #expect(
            AllocationPass.jemallocLibrary(environment: ["FRONTMAIL_JEMALLOC": "/opt/je.so"], exists: { _ in true })
                == "/opt/je.so")
        // A named library that is not there is not replaced by another one.
        #expect(AllocationPass.jemallocLibrary(environment: ["FRONTMAIL_JEMALLOC": "/opt/je.so"], exists: none) == nil)
        #expect(
            AllocationPass.jemallocLibrary(environment: ["FRONTMAIL_NO_JEMALLOC": "1"], exists: { _ in true }) == nil)
        #if os(Linux)
            let debian = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
            #expect(AllocationPass.jemallocLibrary(environment: [:], exists: { $0 == debian }) == debian)
        #endif
    }

    @Test("the pass gets the benchmark's own arguments, its flag and a scratch --out in place of the user's")
    func arguments() {
        #expect(
            AllocationPass.childArguments(["--quick", "--out", "/tmp/a.csv"], out: "/tmp/s.csv")
                == ["--quick", "--allocation-pass", "--out", "/tmp/s.csv"])
        #expect(
            AllocationPass.childArguments(["--out=/tmp/a.csv", "--allocation-pass"], out: "/s")
                == ["--allocation-pass", "--out", "/s"])
    }

    @Test("counts come from the pass, ratios from the timing pass, the pass's ratios beside them with the shift")
    func merge() {
        let timing = [
            Self.row("small_form", "frontmail_value", "p50_us", 1.0),
            Self.row("small_form", "frontmail_value", "allocs_per_op", .nan),
            Self.row("small_form", "frontmail_value", "ratio_vs_json_encoder", 10),
            Self.row("small_form", "frontmail_value_control", "ratio_vs_json_encoder", 7.7),
        ]
        let allocation = [
            Self.row("small_form", "frontmail_value", "p50_us", 0.8),
            Self.row("small_form", "frontmail_value", "allocs_per_op", 3),
            Self.row("small_form", "frontmail_value", "ratio_vs_json_encoder", 12.5),
            Self.row("small_form", "frontmail_value", "ratio_vs_3_allocations", 1),
            Self.row("small_form", "frontmail_value_control", "ratio_vs_json_encoder", 9.6),
        ]
        let (merged, shifts) = AllocationPass.merge(timing: timing, allocation: allocation)
        let budget = AllocationTarget(group: "small_form", subject: "frontmail_value", limit: 3)
        let rows = merged + budget.check(in: merged).rows(benchmark: "encoder")
        func value(_ metric: String, _ statistic: String) -> Double? {
            rows.first { $0.metric == metric && $0.statistic == statistic }?.value
        }
        // Timings are the system allocator's, never the pass's.
        #expect(value("frontmail_value", "p50_us") == 1.0)
        #expect(value("frontmail_value", "ratio_vs_json_encoder") == 10)
        #expect(value("frontmail_value", "allocs_per_op") == 3)
        #expect(value("frontmail_value", "jemalloc_ratio_vs_json_encoder") == 12.5)
        // A count against its budget is judged on the merged counts, and has no jemalloc twin.
        #expect(value("frontmail_value", "ratio_vs_3_allocations") == 1)
        #expect(value("frontmail_value", "jemalloc_ratio_vs_3_allocations") == nil)
        #expect(value("frontmail_value_control", "jemalloc_ratio_vs_json_encoder") == 9.6)
        #expect(
            shifts == [
                "allocator small_form: frontmail_value is 10.00x json_encoder on the system allocator, 12.50x on jemalloc (shift +25%)"
            ])
        // Every row written is declared in the gate's catalog.
        for row in rows { #expect(MetricPolicies.policy(row) != nil, "\(row.statistic)") }
    }

    @Test("an allocation budget is met at its limit, missed above it, and n/a where nothing was counted")
    func budgets() {
        let budget = AllocationTarget(group: "g", subject: "w", limit: 3)
        func check(_ allocations: Double) -> RatioCheck {
            budget.check(in: [Self.row("g", "w", "allocs_per_op", allocations)])
        }
        #expect(check(3).met && check(3).ratio == 1)
        #expect(check(2).met)
        // One allocation too many (a planted regression) misses the budget.
        #expect(!check(4).met && check(4).ratio == 0.75)
        #expect(check(.nan).ratio.isNaN)
        #expect(budget.check(in: []).ratio.isNaN)
        #expect(check(3).rows(benchmark: "encoder").first?.statistic == "ratio_vs_3_allocations")
    }

    @Test("with no pass to merge, the timing pass's rows are written as they are")
    func nothingToMerge() {
        let timing = [Self.row("g", "w", "allocs_per_op", .nan), Self.row("g", "w", "ratio_vs_b", 2)]
        let (rows, shifts) = AllocationPass.merge(timing: timing, allocation: [])
        #expect(rows.map(\.statistic) == timing.map(\.statistic))
        #expect(rows[0].value.isNaN)
        #expect(rows[1].value == 2)
        #expect(shifts.isEmpty)
    }
}
