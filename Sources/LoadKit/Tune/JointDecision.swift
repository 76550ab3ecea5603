import FakeFrontmail
import Foundation

/// One decision over a sweep and the storms sweeps given with it (`tune A.json STORMS.json`): the
/// rule runs on the first sweep's cells, and a policy it would recommend (or keep tied) that a
/// storms sweep finds metastable, or overloaded before the drop, where another policy recovers is
/// excluded and the rule runs again. A policy the storms sweep did not measure is run there first
/// (its places in `StormScreen.recoverable` order, stopping at the first that fails it). Done for
/// the file's objective and every compared deadline, from the same runs.
package struct JointDecision: Sendable {
    package var screens: [StormScreen]
    /// Per objective (keyed by its deadline's text), the policies the storms exclude.
    var excluded: [String: Set<PolicyPoint>] = [:]
    /// False when the screen was interrupted (then exclusions may be missing).
    package var complete = true

    /// At most this many rounds of "decide, screen what won" per objective.
    static let maxRounds = 200

    func excluded(for objective: TuneObjective) -> Set<PolicyPoint> { excluded[objective.deadlineText] ?? [] }

    /// The storms' verdicts on `policy`, one line per storms sweep.
    func verdicts(of policy: PolicyPoint) -> [String] { screens.map { $0.verdict(of: policy) } }

    /// Runs the loop for every objective of `tune` over `cells`; `run` measures one policy at one
    /// place of one storms sweep (nil: interrupted).
    package static func make(
        tune: TuneFile, cells: [TuneCell], screens: [StormScreen],
        run: (PolicyPoint, TuneEnvironment, Int) async -> TuneCell?
    ) async -> JointDecision {
        var joint = JointDecision(screens: screens)
        let measured = cells.filter { !$0.runs.isEmpty }
        for objective in tune.objective.alternatives {
            let judged = measured.map { $0.judged(by: objective) }
            var excluded: Set<PolicyPoint> = []
            rounds: for _ in 0..<maxRounds {
                let contenders = TuneRule.contenders(
                    judged, excluded: excluded, scales: tune.clients, scale: tune.scale(of:))
                guard !contenders.isEmpty else { break }
                var failed = false
                for policy in contenders {
                    for index in joint.screens.indices {
                        while let place = joint.screens[index].nextPlace(for: policy) {
                            guard !Task.isCancelled, let environment = joint.screens[index].environments[place],
                                let cell = await run(policy, environment, index), !cell.runs.isEmpty
                            else {
                                joint.complete = false
                                break rounds
                            }
                            joint.screens[index].record(cell, at: place)
                        }
                        if joint.screens[index].failure(of: policy) != nil {
                            excluded.insert(policy)
                            failed = true
                        }
                    }
                }
                if !failed { break }
            }
            joint.excluded[objective.deadlineText] = excluded
            if !joint.complete { break }
        }
        return joint
    }
}

extension TuneCell {
    /// The same cell judged by `objective`.
    func judged(by objective: TuneObjective) -> TuneCell {
        var copy = self
        copy.objective = objective
        return copy
    }
}
