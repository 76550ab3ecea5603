/// Small statistics of a few seeds and of proportions (the sweep's confidence intervals).
enum Statistics {
    /// The two-sided 95 % normal quantile.
    static let z975 = 1.959_963_984_540_054

    /// Student's t quantile at 0.975 for `degrees` degrees of freedom: the published table to 30,
    /// beyond it the Cornish-Fisher expansion of t in 1/ν around the normal quantile (Abramowitz
    /// and Stegun 26.7.5), which agrees with the exact quantile to 5 decimals from 30 on (at 30:
    /// 2.04227 against the table's 2.042). NaN below 1.
    static func studentT975(degrees: Int) -> Double {
        let table: [Double] = [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
            2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
            2.045, 2.042,
        ]
        guard degrees >= 1 else { return .nan }
        if degrees <= table.count { return table[degrees - 1] }
        let z = z975
        let z2 = z * z
        let g1 = (z2 + 1) * z / 4
        let g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
        let g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
        let g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92_160
        let inverse = 1 / Double(degrees)
        return z + inverse * (g1 + inverse * (g2 + inverse * (g3 + inverse * g4)))
    }

    /// Wilson's 95 % score interval for a binomial proportion.
    static func wilson(successes: Int, trials: Int) -> (low: Double, high: Double) {
        guard trials > 0 else { return (.nan, .nan) }
        let z = z975
        let n = Double(trials)
        let rate = Double(successes) / n
        let denominator = 1 + z * z / n
        let centre = (rate + z * z / (2 * n)) / denominator
        let half = z * (rate * (1 - rate) / n + z * z / (4 * n * n)).squareRoot() / denominator
        return (max(0, centre - half), min(1, centre + half))
    }
}
