/// A log-linear histogram of non-negative integers (HdrHistogram's layout, 3 significant digits):
/// values below 2048 are exact; above, each power of two is split into 1024 equal buckets, so a
/// recorded value is known to within 0.1 %. Recording never allocates; histograms merge.
public struct Histogram: Sendable, Hashable {
    /// The largest value that can be recorded (larger ones are clamped): 2^44 (≈ 4.9 h in ns).
    public static let highestTrackable: UInt64 = 1 << 44

    private static let exactLimit: UInt64 = 2048
    private static let subBuckets = 1024
    private static let bucketCount = 2048 + (44 - 11 + 1) * 1024

    private var counts: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var min: UInt64 = .max
    public private(set) var max: UInt64 = 0
    public private(set) var sum: Double = 0
    /// Values above `highestTrackable`, recorded as it.
    public private(set) var clamped: UInt64 = 0

    public init() {
        counts = Array(repeating: 0, count: Self.bucketCount)
    }

    static func index(of value: UInt64) -> Int {
        if value < exactLimit { return Int(value) }
        let extraBits = (64 - value.leadingZeroBitCount) - 11
        let top = Int(value >> UInt64(extraBits))
        return 2048 + (extraBits - 1) * subBuckets + (top - 1024)
    }

    /// The smallest and largest value of a bucket.
    static func bounds(of index: Int) -> (low: UInt64, high: UInt64) {
        if index < 2048 { return (UInt64(index), UInt64(index)) }
        let extraBits = (index - 2048) / subBuckets + 1
        let top = UInt64((index - 2048) % subBuckets + 1024)
        let low = top << UInt64(extraBits)
        return (low, low + (1 << UInt64(extraBits)) - 1)
    }

    public mutating func record(_ value: UInt64, count times: UInt64 = 1) {
        var value = value
        if value > Self.highestTrackable {
            value = Self.highestTrackable
            clamped += times
        }
        counts[Self.index(of: value)] += times
        count += times
        if value < min { min = value }
        if value > max { max = value }
        sum += Double(value) * Double(times)
    }

    /// Records a non-negative double after scaling (`seconds` with scale 1e9 records nanoseconds).
    public mutating func record(_ value: Double, scale: Double) {
        guard value.isFinite else { return }
        // Clamped before the conversion: a value past the range is counted as clamped, never a trap.
        record(UInt64(Swift.min(Double(Self.highestTrackable), Swift.max(0, (value * scale).rounded()))))
    }

    public mutating func merge(_ other: Histogram) {
        guard other.count > 0 else { return }
        for index in other.counts.indices where other.counts[index] != 0 { counts[index] += other.counts[index] }
        count += other.count
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        sum += other.sum
        clamped += other.clamped
    }

    /// The same histogram kept in its non-empty buckets only: what a long sweep holds per run (a
    /// full one is 295 KB; a run's latencies fill a few hundred buckets). Merging it back gives the
    /// same counts, extremes and sum as merging the full one.
    public var compacted: CompactHistogram {
        var compact = CompactHistogram(count: count, min: min, max: max, sum: sum, clamped: clamped)
        for index in counts.indices where counts[index] != 0 {
            compact.indices.append(UInt32(index))
            compact.counts.append(counts[index])
        }
        return compact
    }

    public mutating func merge(_ other: CompactHistogram) {
        guard other.count > 0 else { return }
        for (index, times) in zip(other.indices, other.counts) { counts[Int(index)] += times }
        count += other.count
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        sum += other.sum
        clamped += other.clamped
    }

    public var mean: Double { count == 0 ? .nan : sum / Double(count) }

    /// The value at `quantile` (0...1): the highest value of the bucket holding that rank, capped by
    /// the exact maximum. NaN when empty.
    public func value(at quantile: Double) -> Double {
        guard count > 0 else { return .nan }
        if quantile >= 1 { return Double(max) }
        if quantile <= 0 { return Double(min) }
        let rank = Swift.max(1, UInt64((quantile * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] != 0 {
            seen += counts[index]
            if seen >= rank { return Double(Swift.min(Self.bounds(of: index).high, max)) }
        }
        return Double(max)
    }

    /// Non-empty buckets as (low, high, count), for histogram CSVs.
    public var buckets: [(low: UInt64, high: UInt64, count: UInt64)] {
        counts.indices.compactMap { index in
            guard counts[index] != 0 else { return nil }
            let bounds = Self.bounds(of: index)
            return (bounds.low, bounds.high, counts[index])
        }
    }

    /// The percentiles every report shows.
    public static let reportedQuantiles: [(name: String, quantile: Double)] = [
        ("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999), ("max", 1),
    ]

    /// The statistics a summary reports of a histogram besides its count: the mean and the
    /// reported quantiles.
    public static let summaryStatistics = ["mean"] + reportedQuantiles.map(\.name)
}

/// A `Histogram`'s non-empty buckets with its count, extremes, sum and clamped count
/// (`Histogram.compacted`); merged back with `Histogram.merge(_:)`.
public struct CompactHistogram: Sendable, Hashable {
    fileprivate(set) var indices: [UInt32] = []
    fileprivate(set) var counts: [UInt64] = []
    public let count: UInt64
    public let min: UInt64
    public let max: UInt64
    public let sum: Double
    public let clamped: UInt64

    public init() {
        self.init(count: 0, min: .max, max: 0, sum: 0, clamped: 0)
    }

    fileprivate init(count: UInt64, min: UInt64, max: UInt64, sum: Double, clamped: UInt64) {
        self.count = count
        self.min = min
        self.max = max
        self.sum = sum
        self.clamped = clamped
    }
}
