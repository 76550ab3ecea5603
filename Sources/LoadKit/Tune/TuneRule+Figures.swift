import Foundation

/// The figures that narrow a tied set: one policy's cells, every environment.
extension TuneRule {
    /// Sends per 10,000 lost against each environment's best success, summed over the
    /// environments by weight, in units of the mean weight (only the weights' ratios matter; with
    /// every weight 1, the plain sum).
    static func sendsLost(_ cells: [TuneCell], best: [String: TuneCell]) -> Double {
        let sum = cells.reduce(0) { sum, cell in
            sum + max(0, (best[cell.environment.name]?.userSuccess ?? cell.userSuccess) - cell.userSuccess) * 10_000
                * cell.weight
        }
        let weights = cells.reduce(0) { $0 + $1.weight }
        return weights == 0 ? 0 : sum * (Double(cells.count) / weights)
    }

    /// Mean amplification, by weight, over the environments where it says something.
    static func serverLoad(_ cells: [TuneCell], dropped: [String: [Objective: String]]) -> Double {
        let used = cells.filter { dropped[$0.environment.name]?[.amplification] == nil && $0.amplification.isFinite }
        let weights = used.reduce(0) { $0 + $1.weight }
        return used.isEmpty ? 0 : used.reduce(0) { $0 + $1.amplification * $1.weight } / weights
    }

    /// Requests processed after their client had gone, per 10,000 sends, each environment's
    /// counts by its weight (the pooled ratio when every weight is 1).
    static func deadWork(_ cells: [TuneCell]) -> Double {
        let sends = cells.reduce(0) { $0 + Double($1.sends) * $1.weight }
        return sends == 0 ? 0 : cells.reduce(0) { $0 + Double($1.deadWork) * $1.weight } / sends * 10_000
    }

    /// How much slower a policy's sends that made the deadline are than the fastest of `lowest`
    /// (per environment, the lowest latency at the objective's quantile among the policies still
    /// tied): the geometric mean, over the environments where the figure says something, of its
    /// latency over that lowest, weighted by the environments' weights. 1 is the fastest
    /// everywhere; an environment where a policy has no sends in time, or none has, is left out.
    static func latencyStretch(
        _ cells: [TuneCell], lowest: [String: Double], dropped: [String: [Objective: String]]
    ) -> Double {
        var logs = 0.0
        var weights = 0.0
        for cell in cells where dropped[cell.environment.name]?[.p99] == nil {
            guard let low = lowest[cell.environment.name], low > 0, cell.okLatency.isFinite else { continue }
            logs += log(cell.okLatency / low) * cell.weight
            weights += cell.weight
        }
        return weights == 0 ? 1 : exp(logs / weights)
    }
}
