import Foundation
import Testing

@testable import FakeFrontmail
@testable import LoadKit

@Suite("statistics: log-linear histogram, Kolmogorov-Smirnov")
struct StatisticsTests {
    @Test("percentiles are within 0.1 % of the exact order statistics")
    func histogramAccuracy() {
        var random = SeededRandom(seed: 1)
        var histogram = Histogram()
        var values: [UInt64] = []
        for _ in 0..<50_000 {
            let value = UInt64(exp(random.unit() * 20))
            values.append(value)
            histogram.record(value)
        }
        values.sort()
        for quantile in [0.5, 0.9, 0.99, 0.999] {
            let exact = Double(values[Int((quantile * Double(values.count)).rounded(.up)) - 1])
            let estimate = histogram.value(at: quantile)
            #expect(estimate >= exact && estimate <= exact * 1.001 + 1, "q\(quantile): \(estimate) vs \(exact)")
        }
        #expect(histogram.value(at: 1) == Double(values.last!))
        #expect(histogram.min == values.first!)
        #expect(histogram.count == 50_000)
    }

    @Test("bucket bounds tile the range without gaps")
    func bucketBounds() {
        var previousHigh: UInt64?
        for index in 0..<(2048 + 3 * 1024) {
            let bounds = Histogram.bounds(of: index)
            if let previousHigh { #expect(bounds.low == previousHigh + 1) }
            #expect(Histogram.index(of: bounds.low) == index && Histogram.index(of: bounds.high) == index)
            previousHigh = bounds.high
        }
    }

    @Test("merging equals recording everything in one")
    func merge() {
        var a = Histogram()
        var b = Histogram()
        var all = Histogram()
        for value in 0..<10_000 as Range<UInt64> {
            if value % 3 == 0 { a.record(value * 977) } else { b.record(value * 977) }
            all.record(value * 977)
        }
        a.merge(b)
        #expect(a == all)
        var clamp = Histogram()
        clamp.record(UInt64.max)
        #expect(clamp.clamped == 1 && clamp.max == Histogram.highestTrackable)
    }

    @Test("a compacted histogram merges back to the same histogram, clamped values and all")
    func compacted() {
        var random = SeededRandom(seed: 7)
        var parts = [Histogram(), Histogram(), Histogram()]
        var all = Histogram()
        for step in 0..<20_000 {
            let value = step % 97 == 0 ? UInt64.max : random.next() % 5_000_000_000
            parts[step % 3].record(value)
            all.record(value)
        }
        var merged = Histogram()
        var mergedFull = Histogram()
        for part in parts {
            merged.merge(part.compacted)
            mergedFull.merge(part)
        }
        #expect(merged == all && merged == mergedFull && merged.clamped > 0)
        #expect(parts[0].compacted.count == parts[0].count && parts[0].compacted != parts[1].compacted)
        var empty = Histogram()
        empty.merge(Histogram().compacted)
        #expect(empty == Histogram() && CompactHistogram() == Histogram().compacted)
    }

    @Test("KS accepts uniform samples and gives their D, critical value and p")
    func ksAcceptsUniform() {
        var random = SeededRandom(seed: 42)
        let test = KolmogorovSmirnov(uniform: (0..<5000).map { _ in random.unit() })
        #expect(test.n == 5000)
        #expect(!test.rejects(alpha: 0.01))
        #expect(test.p > 0.01)
        #expect(abs(KolmogorovSmirnov.critical(n: 10_000, alpha: 0.05) - 1.358 / 100) < 2e-4)
        #expect(abs(KolmogorovSmirnov.critical(n: 10_000, alpha: 0.01) - 1.628 / 100) < 2e-4)
    }

    @Test("KS rejects what is not uniform", arguments: ["constant", "half", "squared", "capped"])
    func ksRejects(kind: String) {
        var random = SeededRandom(seed: 9)
        let values: [Double] = (0..<2000).map { _ in
            let r = random.unit()
            switch kind {
            case "constant": return 0.999
            case "half": return 0.5 + r / 2
            case "squared": return r * r
            default: return min(1, r * 4)
            }
        }
        let test = KolmogorovSmirnov(uniform: values)
        #expect(test.rejects(alpha: 0.05))
        #expect(test.p < 0.001)
    }

    @Test(
        "KS with delays: no delay is the plain test; uniform draws delayed within their allowance pass; draws too long or too short for the band fail"
    )
    func ksWithDelays() {
        var random = SeededRandom(seed: 3)
        let plain = (0..<500).map { _ in random.unit() }
        let same = KolmogorovSmirnov(uniform: plain, delays: Array(repeating: 0, count: plain.count))
        #expect(same == KolmogorovSmirnov(uniform: plain))
        // Each draw delayed by a random share of an allowance of 0.3: the plain test rejects, the
        // band does not.
        let delays = (0..<2000).map { _ in 0.3 }
        let delayed = delays.map { random.unit() + $0 * random.unit() }
        #expect(KolmogorovSmirnov(uniform: delayed).p < 1e-6)
        #expect(KolmogorovSmirnov(uniform: delayed, delays: delays).p > 0.01)
        // Delayed by more than allowed (a floor at 0.5), or drawn too short (squared): rejected.
        let floored = delays.map { _ in 0.5 + random.unit() / 2 }
        #expect(KolmogorovSmirnov(uniform: floored, delays: delays).p < 1e-6)
        let squared = delays.map { _ in random.unit() * random.unit() }
        #expect(KolmogorovSmirnov(uniform: squared, delays: delays).p < 1e-6)
        // The band's lower edge is the mean of the shifted distributions: half the values late by
        // a whole unit fit an allowance of a unit for half of them, not one of half a unit for all.
        let mixed = (0..<2000).map { index in random.unit() + (index.isMultiple(of: 2) ? 1 : 0) }
        let allowance = (0..<2000).map { index in index.isMultiple(of: 2) ? 1.0 : 0 }
        #expect(KolmogorovSmirnov(uniform: mixed, delays: allowance).p > 0.01)
        #expect(KolmogorovSmirnov(uniform: mixed, delays: allowance.map { _ in 0.5 }).p < 1e-6)
    }

    @Test("moments: mean and sample variance")
    func moments() {
        let moments = Moments([1, 2, 3, 4])
        #expect(moments.mean == 2.5)
        #expect(abs(moments.variance - 5.0 / 3) < 1e-12)
    }

    @Test("summary CSV round-trips, with quoting and nan")
    func summaryRoundTrip() throws {
        let rows = [
            SummaryRow(scenario: "a,b", probe: "send", metric: "latency", statistic: "p99", value: 12.5, unit: "ms"),
            SummaryRow(scenario: "x", probe: "jitter", metric: "ks_p", statistic: "value", value: .nan, unit: "p"),
            SummaryRow(scenario: "x", probe: "send", metric: "sends", statistic: "value", value: 3000, unit: "sends"),
        ]
        let text = SummaryCSV.render(rows, runID: "run-1")
        #expect(text.hasPrefix(SummaryCSV.header + "\n"))
        #expect(text.contains("\"a,b\""))
        #expect(text.contains(",3000,sends"))
        let parsed = try SummaryCSV.parse(text)
        #expect(parsed.runID == "run-1")
        #expect(parsed.rows.count == 3)
        #expect(parsed.rows[0] == rows[0])
        #expect(parsed.rows[1].value.isNaN)
        #expect(throws: CSVError.self) { try SummaryCSV.parse("a,b\n1,2\n") }
    }

    /// Student's t at 0.975 from the exact quantile function (scipy.stats.t.ppf, to 5 decimals).
    static let studentT: [(degrees: Int, quantile: Double)] = [
        (1, 12.70620), (2, 4.30265), (10, 2.22814), (30, 2.04227), (31, 2.03951), (32, 2.03693), (40, 2.02108),
        (50, 2.00856), (60, 2.00030), (80, 1.99006), (100, 1.98397), (120, 1.97993), (1000, 1.96234),
        (100_000, 1.95999),
    ]

    @Test("Student's t at 0.975: the table to 30 degrees, the expansion beyond, within 0.001 of the exact quantile")
    func studentT() {
        for (degrees, quantile) in Self.studentT {
            let value = Statistics.studentT975(degrees: degrees)
            #expect(abs(value - quantile) < 1e-3, "t(\(degrees)) = \(value), exact \(quantile)")
        }
        // Beyond the table the expansion is exact to 5 decimals (1.96 flat, the old rule, is 4 % short at 32).
        for (degrees, quantile) in Self.studentT where degrees > 30 {
            #expect(abs(Statistics.studentT975(degrees: degrees) - quantile) < 1e-5)
        }
        #expect(Statistics.studentT975(degrees: 0).isNaN)
        // Decreasing towards the normal quantile, also across the end of the table.
        let values = (1...200).map { Statistics.studentT975(degrees: $0) }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 > $1 } && values.last! > Statistics.z975)
    }
}
