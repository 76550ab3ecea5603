import Foundation

/// A histogram as HdrHistogram's percentile-distribution text (`.hgrm`, what its
/// `outputPercentileDistribution` prints and its plotter reads): a `Value Percentile TotalCount
/// 1/(1-Percentile)` table at percentile levels that halve their distance to 100 % in
/// `ticksPerHalfDistance` steps, then the `#[Mean …]`, `#[Max …]`, `#[Buckets …]` footer.
///
/// Values are the highest value of the bucket holding each rank (capped by the exact maximum),
/// divided by `divisor` (nanoseconds ÷ 1e6: milliseconds), with three decimals.
enum HgrmWriter {
    /// The buckets and sub-buckets of `Histogram`'s layout in HdrHistogram's terms.
    static let bucketCount = 35
    static let subBucketCount = 2048

    static func render(_ histogram: Histogram, divisor: Double, ticksPerHalfDistance: Int = 5) -> String {
        var text = pad("Value", 12) + " " + pad("Percentile", 14) + " " + pad("TotalCount", 10) + " "
        text += pad("1/(1-Percentile)", 14) + "\n\n"
        let buckets = histogram.buckets
        let total = histogram.count
        var level = 0.0
        var index = 0
        var cumulative: UInt64 = buckets.first?.count ?? 0
        while total > 0 {
            let rank = max(1, UInt64((level / 100 * Double(total)).rounded(.up)))
            while cumulative < rank, index + 1 < buckets.count {
                index += 1
                cumulative += buckets[index].count
            }
            let value = Double(min(buckets[index].high, histogram.max)) / divisor
            if cumulative >= total {
                // The last recorded value: its own line at this level, then 100 %.
                if level < 100 { text += line(value, level / 100, cumulative, last: false) }
                text += line(value, 1, cumulative, last: true)
                break
            }
            text += line(value, level / 100, cumulative, last: false)
            // HdrHistogram's percentile ticks: `ticksPerHalfDistance` steps per halving of the
            // distance to 100 %.
            let halvings = (log2(100 / (100 - level))).rounded(.down)
            let ticks = Double(ticksPerHalfDistance) * pow(2, halvings + 1)
            level += 100 / ticks
        }
        let mean = total == 0 ? 0 : histogram.mean / divisor
        var squares = 0.0
        for bucket in buckets {
            let middle = (Double(bucket.low) + Double(min(bucket.high, histogram.max))) / 2 / divisor
            squares += Double(bucket.count) * (middle - mean) * (middle - mean)
        }
        let deviation = total == 0 ? 0 : (squares / Double(total)).squareRoot()
        text += "#[Mean    = \(fixed(mean, 12, 3)), StdDeviation   = \(fixed(deviation, 12, 3))]\n"
        let maximum = total == 0 ? 0 : Double(histogram.max) / divisor
        text += "#[Max     = \(fixed(maximum, 12, 3)), Total count    = \(pad(String(total), 12))]\n"
        text += "#[Buckets = \(pad(String(bucketCount), 12)), SubBuckets     = \(pad(String(subBucketCount), 12))]\n"
        return text
    }

    private static func line(_ value: Double, _ percentile: Double, _ count: UInt64, last: Bool) -> String {
        var text = fixed(value, 12, 3) + " " + fixed(percentile, 14, 12) + " " + pad(String(count), 10)
        if !last { text += " " + fixed(1 / (1 - percentile), 14, 2) }
        return text + "\n"
    }

    /// Right-aligned in `width` (the `%Nd`/`%Ns` of the format).
    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// `%W.Pf`.
    private static func fixed(_ value: Double, _ width: Int, _ places: Int) -> String {
        pad(String(format: "%.\(places)f", value), width)
    }

    /// Parses `.hgrm` text back into (value, percentile, total count) rows (for tests and readers).
    static func parse(_ text: String) -> [(value: Double, percentile: Double, count: UInt64)] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, let value = Double(fields[0]), let percentile = Double(fields[1]),
                let count = UInt64(fields[2])
            else { return nil }
            return (value, percentile, count)
        }
    }
}
