import Foundation

/// Latency by percentile, HdrHistogram style: x is the percentile on a log 1/(1−p) axis (90 %,
/// 99 %, 99.9 %… evenly spaced), y the latency in policy ms. Several series overlay (scenarios of
/// several runs, or a run and its baseline).
enum LatencySpectrumChart {
    struct Series {
        var name: String
        /// Histogram buckets in ms: (low, high, count).
        var buckets: [(low: Double, high: Double, count: Double)]
    }

    static let caption =
        "Read left to right: the median, then each step to the right is ten times rarer (90 %, 99 %, 99.9 %). A curve that rises at the right is a tail; the last point is the slowest send."

    static func render(_ series: [Series], title: String) -> String? {
        let curves = series.map { ($0.name, curve($0.buckets)) }.filter { !$0.1.isEmpty }
        guard !curves.isEmpty else { return nil }
        let reach = curves.map { $0.1.last?.0 ?? 10 }.max() ?? 10
        let highest = curves.flatMap { $0.1.map(\.1) }.max() ?? 1
        // Every send took no time (virtual time, no delay in the plan): nothing to draw.
        guard highest > 0 else { return nil }
        var canvas = SVGCanvas(
            x: .logarithmic(1, reach, title: "percentile (log 1/(1−p))", label: percentileLabel),
            y: .linear(0, highest, title: "latency (policy ms)"))
        for (index, (name, points)) in curves.enumerated() {
            let color = SVGCanvas.palette[index % SVGCanvas.palette.count]
            canvas.polyline(points, color: color, width: 2)
            canvas.legendEntry(name, color: color)
        }
        return canvas.svg(title: title)
    }

    /// (1/(1−p), latency) at p = 1 − 10^(−t), t in steps of 0.05 up to what the sample resolves.
    static func curve(_ buckets: [(low: Double, high: Double, count: Double)]) -> [(Double, Double)] {
        let total = buckets.reduce(0) { $0 + $1.count }
        guard total > 0 else { return [] }
        let deepest = min(5, log10(total))
        var points: [(Double, Double)] = []
        var step = 0.0
        while step <= deepest + 1e-9 {
            let quantile = 1 - pow(10, -step)
            points.append((pow(10, step), value(buckets, total: total, quantile: quantile)))
            step += 0.05
        }
        return points
    }

    static func value(_ buckets: [(low: Double, high: Double, count: Double)], total: Double, quantile: Double)
        -> Double
    {
        let rank = max(1, (quantile * total).rounded(.up))
        var seen = 0.0
        for bucket in buckets {
            seen += bucket.count
            if seen >= rank { return bucket.high }
        }
        return buckets.last?.high ?? .nan
    }

    static func percentileLabel(_ inverse: Double) -> String {
        if inverse <= 1 { return "0%" }
        let percent = 100 * (1 - 1 / inverse)
        let places = max(0, Int((log10(inverse)).rounded()) - 2)
        return String(format: "%.\(places)f%%", percent)
    }

    /// The buckets of a `latency_histogram.csv`.
    static func buckets(csv: String) -> [(low: Double, high: Double, count: Double)] {
        CSV.rows(csv).dropFirst().compactMap { fields in
            // A row out of range (not a finite, non-negative bucket and count) is left out.
            guard fields.count >= 3, let low = Double(fields[0]), let high = Double(fields[1]),
                let count = Double(fields[2]), [low, high, count].allSatisfy({ $0.isFinite && $0 >= 0 }), low <= high
            else { return nil }
            return (low, high, count)
        }
    }
}
