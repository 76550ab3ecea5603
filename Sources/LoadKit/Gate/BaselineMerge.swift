/// Several runs of one benchmark merged into a baseline: each figure is the median of the runs, and
/// each same-run ratio's spread is the larger of the spreads the runs measured and the spread of the
/// ratio between the runs (what one run's rounds cannot show: code layout, the CPU a run lands on).
public enum BaselineMerge {
    /// Half the range of the runs' ratios relative to their median: what the runs actually showed.
    /// (A robust deviation would call a handful of runs steadier than their tails are.) NaN with
    /// fewer than three runs.
    static func betweenRuns(_ ratios: [Double]) -> Double {
        let estimate = RatioEstimate(rounds: ratios)
        guard estimate.rounds.count >= 3, let low = estimate.rounds.min(), let high = estimate.rounds.max(),
            estimate.value > 0
        else { return .nan }
        return (high - low) / 2 / estimate.value
    }

    /// Rows in the order they first appear; a row missing from some runs is merged from the rest.
    public static func merge(_ runs: [[SummaryRow]]) -> [SummaryRow] {
        func key(_ row: SummaryRow) -> String { "\(row.scenario).\(row.key)" }
        var order: [String] = []
        var first: [String: SummaryRow] = [:]
        var values: [String: [Double]] = [:]
        for run in runs {
            for row in run {
                let name = key(row)
                if first[name] == nil {
                    order.append(name)
                    first[name] = row
                }
                if !row.value.isNaN { values[name, default: []].append(row.value) }
            }
        }
        return order.compactMap { name in
            guard var row = first[name] else { return nil }
            let known = values[name] ?? []
            row.value = known.isEmpty ? .nan : RatioEstimate(rounds: known).value
            if row.statistic.hasPrefix("spread_vs_") {
                var ratio = row
                ratio.statistic = "ratio_vs_" + row.statistic.dropFirst("spread_vs_".count)
                let between = betweenRuns(values[key(ratio)] ?? [])
                let within = known.max() ?? .nan
                row.value = [between, within].filter { !$0.isNaN }.max() ?? .nan
            }
            return row
        }
    }
}
