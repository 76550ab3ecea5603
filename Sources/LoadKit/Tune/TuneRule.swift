import FakeFrontmail
import Foundation

/// The objectives a sweep compares cells on, and which of them say nothing in an environment.
enum Objective: String, Sendable, CaseIterable {
    case success
    case p99
    case amplification

    /// Objectives that carry no information in one environment's cells, with the reason: the same
    /// value in every cell, or server load that is only the successes again (no failed attempt
    /// reached the server, as in a refused-connection outage).
    static func degenerate(_ cells: [TuneCell]) -> [Objective: String] {
        let measured = cells.filter { !$0.runs.isEmpty }
        guard measured.count >= 2 else { return [:] }
        var dropped: [Objective: String] = [:]
        func constant(_ values: [Double]) -> Bool {
            guard let first = values.first else { return true }
            return values.allSatisfy { $0 == first || ($0.isNaN && first.isNaN) }
        }
        if constant(measured.map(\.userSuccess)) { dropped[.success] = "the same in every cell" }
        if constant(measured.map(\.okLatency)) { dropped[.p99] = "the same in every cell" }
        if constant(measured.map(\.amplification)) {
            dropped[.amplification] = "the same in every cell"
        } else if measured.allSatisfy({ $0.serverRequests == $0.ok }) {
            dropped[.amplification] =
                "no failed attempt reached the server, so its load only repeats the success rate"
        }
        return dropped
    }
}

/// How a policy's success compares with the best cell's of an environment.
enum Standing: String, Sendable {
    /// Within the practical margin of the best point estimate.
    case tie
    /// Below it by more than the margin, and significantly so (two-sample test on pooled counts).
    case worse
    /// Below it by more than the margin, but not significantly: the counts cannot tell.
    case unclear
}

/// The recommendation rule (docs/tune.md, "How the recommendation is made").
///
/// Success is the user's: a send counts when it ended ok within the objective's deadline.
///
/// 1. Candidates: policies measured in every environment with no duplicate, no lost send and no
///    metastable cell, and none of `excluded` (metastable in another sweep's storms).
/// 2. In each environment the best success is the highest pooled point estimate among candidates.
///    A candidate *ties* it when it is at most `margin` below; it is *worse* when it is further
///    below and a one-sided two-proportion z-test on the pooled counts rejects equality at
///    α = 0.01; otherwise it is *unclear*.
/// 3. Fewest *worse* environments, then most *ties*, make the tied set; each environment counts
///    its `weight` (1 when the file gives none), and the sums below are weighted the same way.
/// 4. The tied set is narrowed by, in order: sends lost against each environment's best (within
///    `margin` × 10,000 per 10,000 of the lowest), the latency of the sends that made the deadline
///    (at the objective's quantile, each environment's figure over the tied set's lowest there,
///    the geometric mean over the environments within 10 % of the lowest), server load (mean
///    amplification over the environments where it says something, within 1 %), dead work (within
///    1 %, or 1 per 10,000). One policy left is the winner; several are "no single winner".
/// 5. A winner must be stable: the same policy wins when any one seed is left out, and in at least
///    95 % of bootstrap resamples of the seeds; otherwise there is no single winner.
struct TuneRule: Sendable {
    /// Success within this of the best is a tie (0.1 percentage point).
    static let margin = 0.001
    /// One-sided z for α = 0.01.
    static let zWorse = 2.326_347_874
    static let loadMargin = 0.01
    static let p99Margin = 0.10
    static let resamples = 200
    /// The criterion comparing the latency of the sends that made the deadline.
    static let latencyCriterion = "latency of the sends in time (geometric mean over the environments)"
    static let stableShare = 0.95

    /// What one decision found.
    struct Outcome: Sendable, Equatable {
        /// The winner, or nil.
        var winner: PolicyPoint?
        /// The policies still tied when the criteria ran out (the winner alone when there is one).
        var tied: [PolicyPoint]
        /// The criterion that left one policy, or the figures that could not separate the tied set.
        var decidedBy: String
    }

    struct Stability: Sendable {
        /// Seeds whose omission changes the winner, with the winner then (nil: no single winner).
        var leaveOneOut: [(seed: Int, winner: PolicyPoint?)]
        /// Bootstrap resamples of the seeds, and how many of them the winner won.
        var resamples: Int
        var agreeing: Int
        var seeds: Int
        /// Every policy that won a resample or a leave-one-out decision, with how often.
        var rivals: [PolicyPoint: Int]

        var share: Double { resamples == 0 ? 1 : Double(agreeing) / Double(resamples) }
        var stable: Bool { leaveOneOut.isEmpty && share >= TuneRule.stableShare }
        var checked: Bool { seeds >= 2 }
    }

    /// The full decision: the outcome on every seed, its stability, and what became of it.
    struct Decision: Sendable {
        var outcome: Outcome
        var stability: Stability
        /// Why this sweep recommends nothing whatever its cells say (a quick sweep); nil: it may.
        var withheld: String? = nil
        /// The winner once stability is required (nil when unstable, tied or withheld).
        var recommended: PolicyPoint? { withheld == nil && stability.stable ? outcome.winner : nil }
        /// Objectives dropped per environment, with why.
        var dropped: [String: [Objective: String]]
        var standings: [PolicyPoint: [String: Standing]]
        /// The pick at each scale of a sweep at several (`clients`); empty for one scale.
        var scales: [ScalePick] = []
    }

    /// Decides on `cells` and checks the decision on subsets of their seeds.
    static func decide(_ cells: [TuneCell], excluded: Set<PolicyPoint> = []) -> Decision {
        let measured = cells.filter { !$0.runs.isEmpty }
        let outcome = self.outcome(measured, excluded: excluded)
        let seeds = measured.map(\.runs.count).min() ?? 0
        var stability = Stability(leaveOneOut: [], resamples: 0, agreeing: 0, seeds: seeds, rivals: [:])
        if seeds >= 2, let winner = outcome.winner {
            for left in 0..<seeds {
                let other = self.outcome(subset(measured, seeds: (0..<seeds).filter { $0 != left }), excluded: excluded)
                if other.winner != winner { stability.leaveOneOut.append((left, other.winner)) }
                if let rival = other.winner, rival != winner { stability.rivals[rival, default: 0] += 1 }
            }
            var random = SeededRandom(seed: 0x7475_6E65)
            stability.resamples = resamples
            for _ in 0..<resamples {
                let picked = (0..<seeds).map { _ in Int(random.next() % UInt64(seeds)) }
                let other = self.outcome(subset(measured, seeds: picked), excluded: excluded)
                if other.winner == winner {
                    stability.agreeing += 1
                } else if let rival = other.winner {
                    stability.rivals[rival, default: 0] += 1
                }
            }
        }
        let environments = Dictionary(grouping: measured, by: \.environment.name)
        return Decision(
            outcome: outcome, stability: stability,
            dropped: environments.mapValues { Objective.degenerate($0) }.filter { !$0.value.isEmpty },
            standings: standings(measured, excluded: excluded))
    }

    /// The cells with only the runs of `seeds` (indices, repeats allowed).
    static func subset(_ cells: [TuneCell], seeds: [Int]) -> [TuneCell] {
        cells.map { cell in
            var copy = cell
            copy.runs = seeds.compactMap { $0 < cell.runs.count ? cell.runs[$0] : nil }
            return copy
        }
    }

    /// Candidates: measured in every environment, with no duplicate, lost send or metastable cell,
    /// and not `excluded`.
    static func candidates(_ cells: [TuneCell], excluded: Set<PolicyPoint> = []) -> [PolicyPoint: [TuneCell]] {
        let environments = Set(cells.map(\.environment.name))
        return Dictionary(grouping: cells, by: \.policy).filter { policy, cells in
            !excluded.contains(policy) && cells.count == environments.count
                && cells.allSatisfy { $0.duplicates == 0 && $0.lost == 0 && $0.metastable != true }
        }
    }

    /// The best pooled success among candidates, per environment.
    static func best(_ candidates: [PolicyPoint: [TuneCell]]) -> [String: TuneCell] {
        var best: [String: TuneCell] = [:]
        for cell in candidates.values.joined() {
            guard let current = best[cell.environment.name] else {
                best[cell.environment.name] = cell
                continue
            }
            if cell.userSuccess > current.userSuccess
                || (cell.userSuccess == current.userSuccess && cell.policy < current.policy)
            {
                best[cell.environment.name] = cell
            }
        }
        return best
    }

    /// One candidate cell against its environment's best.
    static func standing(_ cell: TuneCell, best: TuneCell) -> Standing {
        let deficit = best.userSuccess - cell.userSuccess
        guard deficit > margin else { return .tie }
        return twoProportionZ(best.okInDeadline, best.sends, cell.okInDeadline, cell.sends) >= zWorse
            ? .worse : .unclear
    }

    /// z of (a/n − b/m) with the pooled proportion's standard error; 0 when it cannot differ.
    static func twoProportionZ(_ a: Int, _ n: Int, _ b: Int, _ m: Int) -> Double {
        guard n > 0, m > 0 else { return 0 }
        let pooled = Double(a + b) / Double(n + m)
        let variance = pooled * (1 - pooled) * (1 / Double(n) + 1 / Double(m))
        guard variance > 0 else { return 0 }
        return (Double(a) / Double(n) - Double(b) / Double(m)) / variance.squareRoot()
    }

    static func standings(_ cells: [TuneCell], excluded: Set<PolicyPoint> = []) -> [PolicyPoint: [String: Standing]] {
        let candidates = self.candidates(cells, excluded: excluded)
        let best = self.best(candidates)
        return candidates.mapValues { cells in
            Dictionary(
                cells.compactMap { cell in
                    best[cell.environment.name].map { (cell.environment.name, standing(cell, best: $0)) }
                },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// The rule's steps 1-4 on one set of cells.
    static func outcome(_ cells: [TuneCell], excluded: Set<PolicyPoint> = []) -> Outcome {
        let candidates = self.candidates(cells, excluded: excluded)
        guard !candidates.isEmpty else {
            return Outcome(
                winner: nil, tied: [],
                decidedBy: "no policy without a duplicate, a lost send or a metastable cell"
                    + (excluded.isEmpty ? "" : " (here or in the storms)"))
        }
        let best = self.best(candidates)
        var tied = mostSuccessful(candidates, best: best)
        if tied.count == 1 { return Outcome(winner: tied.keys.first, tied: Array(tied.keys), decidedBy: "success") }
        var separations: [String] = []
        for criterion in criteria(cells, best: best) {
            let values = tied.mapValues { criterion.value($0, tied) }
            let lowest = values.values.min() ?? 0
            let kept = tied.filter { criterion.within(values[$0.key]!, lowest) }
            if kept.count < tied.count {
                separations.append(criterion.name)
            }
            tied = kept
            if tied.count == 1 {
                return Outcome(winner: tied.keys.first, tied: Array(tied.keys), decidedBy: criterion.name)
            }
        }
        return Outcome(
            winner: nil, tied: tied.keys.sorted(),
            decidedBy: "within the margins on success, latency, server load and dead work"
                + (separations.isEmpty ? "" : " (narrowed by \(separations.joined(separator: ", ")))"))
    }

    /// Step 1: the candidates worse than an environment's best in the fewest environments, and of
    /// those the ones tied with it in the most.
    private static func mostSuccessful(_ candidates: [PolicyPoint: [TuneCell]], best: [String: TuneCell])
        -> [PolicyPoint: [TuneCell]]
    {
        // Environments counted by weight (1 each without one: the counts themselves).
        func key(_ cells: [TuneCell]) -> (Double, Double) {
            var worse = 0.0
            var ties = 0.0
            for cell in cells {
                guard let top = best[cell.environment.name] else { continue }
                switch standing(cell, best: top) {
                case .tie: ties += cell.weight
                case .worse: worse += cell.weight
                case .unclear: break
                }
            }
            return (worse, -ties)
        }
        let keys = candidates.mapValues(key)
        let top = keys.values.min { $0 < $1 }!
        return candidates.filter { keys[$0.key]! == top }
    }

    /// A tie-break of steps 2-4: its name, a policy's value (from its cells and the policies still
    /// tied) and whether a value is within the margin of the lowest.
    private typealias Criterion = (
        name: String, value: ([TuneCell], [PolicyPoint: [TuneCell]]) -> Double, within: (Double, Double) -> Bool
    )

    /// Steps 2-4 in order: sends lost, latency, server load, dead work.
    private static func criteria(_ cells: [TuneCell], best: [String: TuneCell]) -> [Criterion] {
        // Needed only past success: which objectives say something, per environment.
        let dropped = Dictionary(grouping: cells, by: \.environment.name).mapValues { Objective.degenerate($0) }
        return [
            (
                "sends lost against each environment's best", { cells, _ in sendsLost(cells, best: best) },
                { value, lowest in value <= lowest + margin * 10_000 }
            ),
            (
                latencyCriterion,
                { cells, tied in
                    var lowest: [String: Double] = [:]
                    for cell in tied.values.joined() where cell.okLatency.isFinite {
                        lowest[cell.environment.name] = min(lowest[cell.environment.name] ?? .infinity, cell.okLatency)
                    }
                    return latencyStretch(cells, lowest: lowest, dropped: dropped)
                },
                { value, lowest in value <= lowest * (1 + p99Margin) }
            ),
            (
                "server load (mean amplification)", { cells, _ in serverLoad(cells, dropped: dropped) },
                { value, lowest in value <= lowest * (1 + loadMargin) }
            ),
            (
                "dead work per 10,000 sends", { cells, _ in deadWork(cells) },
                { value, lowest in value <= max(lowest * (1 + loadMargin), lowest + 1) }
            ),
        ]
    }
}
