import FakeFrontmail
import Foundation

/// The sweep's second check of itself: in an outage that refuses every connection from `from` to
/// `to` (a refused attempt fails at once, in process), a send due at `t` inside the window fails
/// only when every attempt falls inside it, that is when its last attempt, `t + S`, comes before
/// `to`, where `S` is the sum of its `r` backoff waits, each uniform on [0, cap_k) with
/// cap_k = min(maxDelay, baseDelay × 2^k). Sends due outside the window succeed at once. Summed
/// over the open loop's schedule this is the cell's success rate, with no simulation in it.
///
/// It holds only on virtual time: on the real clock a send due inside the window can start after
/// it (a host stall), which is what made scaled runs disagree with it.
struct OutageCheck: Sendable {
    var environment: String
    var policy: PolicyPoint
    var window: (from: Double, to: Double)
    var sends: Int
    var success: ModelAgreement

    /// Agreement within sampling error, as the brownout check.
    static let zLimit = BrownoutCheck.zLimit

    var agrees: Bool { abs(success.z) <= Self.zLimit }

    init?(_ cell: TuneCell, scenario: Scenario) {
        let scenario = scenario.onVirtualTime()
        guard scenario.clock == .virtual, scenario.transport.runsOnVirtualTime, scenario.load.kind == .open,
            let window = cell.environment.outageWindow, scenario.plan.rules.count == 1, cell.started > 0,
            cell.runs.count > 0,
            // The closed form has no retry budget: an outage empties any bucket (every attempt fails).
            cell.policy.budget == .none
        else { return nil }
        environment = cell.environment.name
        policy = cell.policy
        self.window = window
        sends = cell.started
        let model = Self.model(window: window, schedule: OpenSchedule(scenario.load).map(\.offset), policy: policy)
        // Each seed runs the same schedule: the variance of the pooled rate is the per-send
        // Bernoulli variances summed, once per seed, over the pooled count squared.
        let n = Double(cell.started)
        success = ModelAgreement(
            measured: Double(cell.ok) / n, analytic: model.success,
            varianceOfMean: model.variance * Double(cell.runs.count) / (n * n))
    }

    /// The expected success rate over a schedule, and the sum of each send's Bernoulli variance.
    static func model(window: (from: Double, to: Double), schedule: [Double], policy: PolicyPoint) -> (
        success: Double, variance: Double
    ) {
        guard !schedule.isEmpty else { return (0, 0) }
        let caps = (0..<policy.maxRetries).map {
            min(policy.maxDelay.seconds, policy.baseDelay.seconds * pow(2, Double($0)))
        }
        let allInside = SumOfUniforms(widths: caps, upTo: window.to - window.from)
        var success = 0.0
        var variance = 0.0
        for due in schedule {
            guard due >= window.from, due < window.to else {
                success += 1
                continue
            }
            let fails = allInside.probabilityBelow(window.to - due)
            success += 1 - fails
            variance += fails * (1 - fails)
        }
        return (success / Double(schedule.count), variance)
    }
}

/// The distribution of a sum of independent uniforms on [0, w_k): `P(S < x)` on a grid, built
/// one uniform at a time (`F_{k+1}(x) = (1/w) ∫_{x−w}^{x} F_k(y) dy`, trapezoids over prefix sums).
struct SumOfUniforms {
    private let step: Double
    /// `P(S < j × step)` for j = 0…steps.
    private var cdf: [Double]
    /// No uniform (every width 0): S is 0.
    private let degenerate: Bool

    init(widths: [Double], upTo limit: Double, steps: Int = 20_000) {
        let widths = widths.filter { $0 > 0 }
        step = max(limit, 1e-9) / Double(steps)
        degenerate = widths.isEmpty
        guard let first = widths.first else {
            cdf = []
            return
        }
        let step = self.step
        var current = (0...steps).map { min(1, Double($0) * step / first) }
        for width in widths.dropFirst() {
            // prefix[j] = ∫_0^{j × step} F(y) dy.
            var prefix = [0.0]
            prefix.reserveCapacity(current.count)
            for j in 1..<current.count { prefix.append(prefix[j - 1] + (current[j - 1] + current[j]) * step / 2) }
            func integral(_ x: Double) -> Double {
                guard x > 0 else { return 0 }
                let position = x / step
                let j = min(Int(position), prefix.count - 1)
                guard j < prefix.count - 1 else { return prefix[j] }
                // F is linear between grid points: add the partial trapezoid.
                let fraction = position - Double(j)
                let value = current[j] + (current[j + 1] - current[j]) * fraction
                return prefix[j] + (current[j] + value) * fraction * step / 2
            }
            current = (0..<current.count).map { j in
                let x = Double(j) * step
                return min(1, max(0, (integral(x) - integral(x - width)) / width))
            }
        }
        cdf = current
    }

    /// P(S < x), for 0 ≤ x within the grid's limit (linear between grid points).
    func probabilityBelow(_ x: Double) -> Double {
        if degenerate { return x > 0 ? 1 : 0 }
        guard x > 0 else { return 0 }
        let position = x / step
        let j = Int(position)
        guard j + 1 < cdf.count else { return cdf.last ?? 1 }
        let fraction = position - Double(j)
        return cdf[j] + (cdf[j + 1] - cdf[j]) * fraction
    }
}
