import Foundation

/// The one-sample Kolmogorov-Smirnov test against U(0,1).
public struct KolmogorovSmirnov: Sendable, Hashable {
    public var n: Int
    /// The largest distance between the empirical and the uniform distribution function.
    public var d: Double
    /// The p-value (Kolmogorov's limiting distribution with Stephens' small-sample correction).
    public var p: Double

    /// Runs the test on `values` (each should lie in [0, 1)).
    public init(uniform values: [Double]) {
        let sorted = values.sorted()
        n = sorted.count
        var d = 0.0
        for (index, value) in sorted.enumerated() {
            let below = Double(index) / Double(n)
            let above = Double(index + 1) / Double(n)
            let clamped = min(max(value, 0), 1)
            d = max(d, above - clamped, clamped - below)
        }
        self.d = n == 0 ? .nan : d
        self.p = n == 0 ? .nan : Self.pValue(d: d, n: n)
    }

    /// Runs the test against values that may come late: each `values[i]` is a draw of U(0,1)
    /// delayed by some unknown amount in `0...delays[i]` (a client's own time between attempts
    /// only ever adds to its wait). The empirical distribution must lie in the band between
    /// U(0,1) and U(0,1) shifted right by each value's delay; D is its largest distance outside
    /// that band. Where the values' true distribution lies in the band, D is at most the plain
    /// KS distance from it, so `p` is conservative; a draw too long (a floor, a herd at the cap)
    /// still falls short of the band's lower edge, and one too short (squared draws) rises above
    /// U(0,1), which no delay excuses. With every delay 0 this is the plain test.
    public init(uniform values: [Double], delays: [Double]) {
        precondition(values.count == delays.count, "one delay per value")
        let sorted = values.sorted()
        let shifts = delays.map { max(0, $0) }.sorted()
        n = sorted.count
        // The band's lower edge at x: the mean over values of U(0,1)'s distribution at x - delay.
        // Walked with x increasing: shifts at or below x - 1 count whole, those in (x - 1, x)
        // count x - shift (a prefix sum), those at or above x count nothing.
        var prefix = [0.0]
        for shift in shifts { prefix.append(prefix[prefix.count - 1] + shift) }
        var whole = 0
        var started = 0
        func lowerEdge(at x: Double) -> Double {
            while whole < shifts.count, shifts[whole] <= x - 1 { whole += 1 }
            while started < shifts.count, shifts[started] < x { started += 1 }
            let partial = Double(started - whole) * x - (prefix[started] - prefix[whole])
            return (Double(whole) + partial) / Double(shifts.count)
        }
        var d = 0.0
        for (index, value) in sorted.enumerated() {
            let below = Double(index) / Double(n)
            let above = Double(index + 1) / Double(n)
            d = max(d, above - min(max(value, 0), 1), lowerEdge(at: value) - below)
        }
        self.d = n == 0 ? .nan : d
        self.p = n == 0 ? .nan : Self.pValue(d: d, n: n)
    }

    /// The test of `n` values whose largest distance from U(0,1) is `d` (measured elsewhere).
    public init(n: Int, d: Double) {
        self.n = n
        self.d = n == 0 ? .nan : d
        self.p = n == 0 ? .nan : Self.pValue(d: d, n: n)
    }

    /// D's critical value at significance `alpha` (0.05 → 1.358/√n, 0.01 → 1.628/√n, corrected).
    public static func critical(n: Int, alpha: Double) -> Double {
        guard n > 0 else { return .nan }
        let c: Double
        switch alpha {
        case 0.10: c = 1.224
        case 0.05: c = 1.358
        case 0.01: c = 1.628
        case 0.001: c = 1.949
        default: c = (-0.5 * log(alpha / 2)).squareRoot()
        }
        let root = Double(n).squareRoot()
        return c / (root + 0.12 + 0.11 / root)
    }

    public func critical(alpha: Double) -> Double { Self.critical(n: n, alpha: alpha) }

    public func rejects(alpha: Double) -> Bool { d > critical(alpha: alpha) }

    /// Q_KS(λ) = 2 Σ (-1)^(k-1) exp(-2 k² λ²), λ = (√n + 0.12 + 0.11/√n) D.
    static func pValue(d: Double, n: Int) -> Double {
        let root = Double(n).squareRoot()
        let lambda = (root + 0.12 + 0.11 / root) * d
        if lambda < 1e-3 { return 1 }
        var sum = 0.0
        var sign = 1.0
        for k in 1...100 {
            let term = sign * exp(-2 * Double(k * k) * lambda * lambda)
            sum += term
            if abs(term) < 1e-12 { break }
            sign = -sign
        }
        return min(1, max(0, 2 * sum))
    }
}

/// Mean and variance in one pass (Welford).
public struct Moments: Sendable {
    public private(set) var count = 0
    public private(set) var mean = 0.0
    private var m2 = 0.0

    public init() {}

    public init(_ values: [Double]) {
        for value in values { add(value) }
    }

    public mutating func add(_ value: Double) {
        count += 1
        let delta = value - mean
        mean += delta / Double(count)
        m2 += delta * (value - mean)
    }

    public var variance: Double { count > 1 ? m2 / Double(count - 1) : .nan }
}
