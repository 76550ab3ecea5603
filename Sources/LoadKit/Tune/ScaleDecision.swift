import Foundation

/// A sweep at several scales (`clients` in the tune file): the rule decides at each scale on that
/// scale's cells alone, and recommends a policy only when it is the recommendation at every scale.
/// Scales are never pooled: an incident at 16 clients is the same incident as at 1, not a second
/// vote, and a policy that wins at one client but not at a thousand is not a default.
extension TuneRule {
    /// What the rule decided at one scale.
    struct ScalePick: Sendable {
        var clients: Int
        var outcome: Outcome
        var recommended: PolicyPoint?

        /// `1 client`, `16 clients`.
        static func clients(_ count: Int) -> String { "\(count) client\(count == 1 ? "" : "s")" }

        /// `16 clients: r3-b300ms-m10s-t15s` or why there is none.
        var text: String {
            let count = Self.clients(clients)
            if let recommended { return "\(count): \(recommended.label) (decided by \(outcome.decidedBy))" }
            if let winner = outcome.winner {
                return "\(count): no single winner (\(winner.label) wins, but not stably)"
            }
            if outcome.tied.isEmpty { return "\(count): none (\(outcome.decidedBy))" }
            return "\(count): no single winner (\(outcome.tied.count) policies tie)"
        }
    }

    /// The cells of each scale, ascending; one group holding every cell when `scales` has fewer
    /// than two.
    static func byScale(_ cells: [TuneCell], scales: [Int], scale: (TuneEnvironment) -> Int) -> [(Int, [TuneCell])] {
        guard scales.count > 1 else { return [(scales.first ?? 0, cells)] }
        return scales.map { count in (count, cells.filter { scale($0.environment) == count }) }
    }

    /// `decide` at each scale; the decision of the first scale carries the others' picks, and it
    /// recommends its winner only when every scale recommends the same policy.
    static func decide(
        _ cells: [TuneCell], excluded: Set<PolicyPoint> = [], scales: [Int], scale: (TuneEnvironment) -> Int
    ) -> Decision {
        guard scales.count > 1 else { return decide(cells, excluded: excluded) }
        let decisions = byScale(cells, scales: scales, scale: scale).map { ($0.0, decide($0.1, excluded: excluded)) }
        var decision = decisions[0].1
        decision.scales = decisions.map {
            ScalePick(clients: $0.0, outcome: $0.1.outcome, recommended: $0.1.recommended)
        }
        for (_, other) in decisions.dropFirst() {
            decision.dropped.merge(other.dropped) { first, _ in first }
            for (policy, standings) in other.standings {
                decision.standings[policy, default: [:]].merge(standings) { first, _ in first }
            }
        }
        let picks = decision.scales.map(\.recommended)
        if let first = picks[0], picks.allSatisfy({ $0 == first }) { return decision }
        decision.outcome = Outcome(winner: nil, tied: [], decidedBy: breakText(decision.scales))
        return decision
    }

    /// Why no policy is recommended at every scale: where the first scale's pick breaks.
    static func breakText(_ picks: [ScalePick]) -> String {
        guard let first = picks.first else { return "no scale measured" }
        guard let pick = first.recommended else {
            return "no policy is recommended at every scale: none at \(ScalePick.clients(first.clients))"
        }
        let broken = picks.filter { $0.recommended != pick }.map(\.clients)
        return
            "no policy is recommended at every scale: \(pick.label), picked at \(ScalePick.clients(first.clients)), is not at \(broken.map(String.init).joined(separator: ", ")) clients"
    }

    /// The policies the rule would pick or keep tied at any scale (what a storms screen must judge).
    static func contenders(
        _ cells: [TuneCell], excluded: Set<PolicyPoint>, scales: [Int], scale: (TuneEnvironment) -> Int
    ) -> [PolicyPoint] {
        var seen: Set<PolicyPoint> = []
        var contenders: [PolicyPoint] = []
        for (_, group) in byScale(cells, scales: scales, scale: scale) {
            let outcome = self.outcome(group, excluded: excluded)
            for policy in outcome.winner.map({ [$0] }) ?? outcome.tied where seen.insert(policy).inserted {
                contenders.append(policy)
            }
        }
        return contenders
    }
}
