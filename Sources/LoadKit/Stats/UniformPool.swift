import Foundation

/// Values of [0, 1] pooled for a Kolmogorov-Smirnov test against U(0,1) in bounded memory, however
/// long a search runs. Up to `exactLimit` values are kept as they are and tested exactly; past it,
/// they are counted in `bins` equal bins and the test reads the empirical distribution at the bins'
/// edges. There D is at most `1 / bins` below the exact D (within a bin the distribution functions
/// move by at most a bin's width), never above it: the binned test rejects only what the exact one
/// would, and loses power only where the exact D lies within 1/65,536 of the critical value (at a
/// million values and α = 10⁻⁶, 0.6 % of that critical value: the power of a sample about 1 %
/// smaller). Memory: at most 8 MiB of values (16 MiB while a test sorts them), then 512 KiB.
public struct UniformPool: Sendable {
    public static let exactLimit = 1 << 20
    public static let bins = 1 << 16

    private var values: [Double] = []
    /// Empty while the values are kept exactly.
    private var counts: [UInt64] = []
    public private(set) var count = 0

    public init() {}

    /// Whether the values are still kept as they are (the test is then the exact one).
    public var isExact: Bool { counts.isEmpty }

    public mutating func add(_ more: [Double]) {
        count += more.count
        if counts.isEmpty {
            values += more
            guard values.count > Self.exactLimit else { return }
            counts = Array(repeating: 0, count: Self.bins)
            for value in values { counts[Self.bin(value)] += 1 }
            values = []
        } else {
            for value in more { counts[Self.bin(value)] += 1 }
        }
    }

    /// The test of every value added: exact while they are kept, at the bins' edges after.
    public func test() -> KolmogorovSmirnov {
        guard !counts.isEmpty else { return KolmogorovSmirnov(uniform: values) }
        let n = Double(count)
        var below = 0.0
        var d = 0.0
        for (index, binCount) in counts.enumerated() {
            // The share of values under this bin's lower edge, against the edge itself.
            d = max(d, abs(below / n - Double(index) / Double(Self.bins)))
            below += Double(binCount)
        }
        return KolmogorovSmirnov(n: count, d: d)
    }

    static func bin(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? bins - 1 : 0 }
        return min(bins - 1, max(0, Int(value * Double(bins))))
    }
}
