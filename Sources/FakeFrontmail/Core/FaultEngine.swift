import Foundation
import Frontmail
import Synchronization

/// Applies a `FaultPlan`: which rule matches a request, what it samples, and the capacity model.
final class FaultEngine: Sendable {
    let plan: FaultPlan
    let seed: UInt64
    /// Refuse windows (seconds since start), from the plan's refuse rules.
    let refuseWindows: [(from: Double, to: Double)]

    private struct State {
        var nthCounters: [Int]
        /// How often each rule has applied (for `limit`).
        var applied: [Int]
        /// When each capacity worker is next free (seconds since start).
        var workerFreeAt: [Double]
        /// Start times of booked requests that may still be waiting (kept only with `maxQueue`).
        var pendingStarts: [Double] = []
    }

    private let state: Mutex<State>

    init(plan: FaultPlan, seed: UInt64) {
        self.plan = plan
        self.seed = seed
        self.refuseWindows = plan.rules.filter { $0.action.kind == .refuse }.map {
            ($0.match.from?.seconds ?? 0, $0.match.to?.seconds ?? .infinity)
        }
        self.state = Mutex(
            State(
                nthCounters: Array(repeating: 0, count: plan.rules.count),
                applied: Array(repeating: 0, count: plan.rules.count),
                workerFreeAt: Array(repeating: 0, count: plan.capacity?.workers ?? 0)))
    }

    func isRefusing(at elapsed: Double) -> Bool {
        refuseWindows.contains { elapsed >= $0.from && elapsed < $0.to }
    }

    struct Facts {
        var endpoint: Endpoint
        var attempt: UInt32
        /// Stable per logical request: the key's hash, or the request index without a key.
        var identity: UInt64
        var elapsed: Double
        var headers: FrontmailHTTPHeaders
    }

    /// The first rule that matches, with a generator for its samples.
    func decide(_ facts: Facts) -> (rule: Int, action: FaultAction, random: SeededRandom)? {
        for (index, rule) in plan.rules.enumerated() where rule.action.kind != .refuse {
            let match = rule.match
            if let endpoint = match.endpoint, endpoint != facts.endpoint { continue }
            if let attempt = match.attempt, !attempt.contains(Int(facts.attempt)) { continue }
            if let from = match.from, facts.elapsed < from.seconds { continue }
            if let to = match.to, facts.elapsed >= to.seconds { continue }
            if let header = match.header, !header.matches(facts.headers) { continue }
            var random = SeededRandom(seed: seed, mixing: facts.identity, UInt64(facts.attempt), UInt64(index))
            if let probability = match.probability, random.unit() >= probability { continue }
            if match.everyNth != nil || rule.limit != nil {
                let applies = state.withLock { state -> Bool in
                    if let nth = match.everyNth {
                        state.nthCounters[index] += 1
                        if state.nthCounters[index] % nth != 0 { return false }
                    }
                    if let limit = rule.limit {
                        guard state.applied[index] < limit else { return false }
                        state.applied[index] += 1
                    }
                    return true
                }
                if !applies { continue }
            }
            return (index, rule.action, random)
        }
        return nil
    }

    enum Admission {
        /// Processing starts after `wait` (queueing plus service time).
        case proceed(wait: Double)
        case shed
    }

    /// Books a worker for a request arriving at `elapsed` (virtual time, no threads involved).
    func admit(at elapsed: Double, identity: UInt64, attempt: UInt32) -> Admission {
        guard let capacity = plan.capacity else { return .proceed(wait: 0) }
        var random = SeededRandom(seed: seed ^ 0xC0FF_EE00, mixing: identity, UInt64(attempt))
        let service = capacity.serviceTime.sample(&random)
        return state.withLock { state -> Admission in
            var best = 0
            for index in state.workerFreeAt.indices where state.workerFreeAt[index] < state.workerFreeAt[best] {
                best = index
            }
            let start = max(elapsed, state.workerFreeAt[best])
            if start > elapsed {
                switch capacity.mode {
                case .shed:
                    return .shed
                case .queue:
                    if let limit = capacity.maxQueue {
                        state.pendingStarts.removeAll { $0 <= elapsed }
                        if state.pendingStarts.count >= limit { return .shed }
                        state.pendingStarts.append(start)
                    }
                }
            }
            state.workerFreeAt[best] = start + service
            return .proceed(wait: start + service - elapsed)
        }
    }
}
