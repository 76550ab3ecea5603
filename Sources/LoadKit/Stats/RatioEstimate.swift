/// A ratio measured in k rounds, each round timing the subject and its baseline side by side: the
/// median of the rounds is the figure, and how far the rounds stray from it is the noise.
public struct RatioEstimate: Sendable, Equatable {
    /// One ratio per round (NaN rounds dropped).
    public private(set) var rounds: [Double]

    public init(rounds: [Double]) {
        self.rounds = rounds.filter { $0.isFinite }
    }

    /// The median of the rounds; NaN without rounds.
    public var value: Double {
        guard !rounds.isEmpty else { return .nan }
        let sorted = rounds.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The rounds' robust standard deviation relative to the median: 1.4826 × the median absolute
    /// deviation (the factor makes it the standard deviation for normal noise; one disturbed round
    /// does not move it). NaN with fewer than three rounds (too few to tell noise from a change).
    public var spread: Double {
        guard rounds.count >= 3 else { return .nan }
        let median = value
        guard median > 0 else { return .nan }
        let deviations = RatioEstimate(rounds: rounds.map { abs($0 - median) }).value
        return 1.4826 * deviations / median
    }
}

/// How the regression gate turns measured noise into a tolerance for a ratio.
public enum RatioGate {
    /// The tolerance is this many times the larger of the two runs' spreads.
    public static let spreadMultiple = 3.0
    /// The gate never claims to see below this (run-to-run effects a single run's rounds cannot
    /// show: code layout, the CPU each run lands on).
    public static let floor = 0.02

    /// `spreadMultiple` × the larger known spread, at least `floor`; nil when neither run measured
    /// a spread (the caller falls back to its fixed tolerance).
    public static func tolerance(baselineSpread: Double?, currentSpread: Double?) -> Double? {
        let known = [baselineSpread, currentSpread].compactMap { $0 }.filter { $0.isFinite && $0 >= 0 }
        guard let largest = known.max() else { return nil }
        return Swift.max(floor, spreadMultiple * largest)
    }
}
