import FakeFrontmail
import Foundation
import Frontmail

/// A sweep of retry policies over fault environments (`tune/*.json`, documented in docs/tune.md):
/// every (policy × environment × seed) cell runs the real SDK send path in process against the
/// base scenario with the environment's faults.
public struct TuneFile: Sendable, Hashable {
    public var name: String
    public var description: String
    /// The load, payload, server, capacity and time scale every cell shares.
    public var base: Scenario
    public var environments: [TuneEnvironment]
    /// How many client instances share the server (`clients`: a number or a list, ascending): every
    /// environment runs at each count, the load spread over that many `Frontmail` instances, each
    /// with its own retry budget. Empty: one scale, each environment's `instances` or the base's.
    public var clients: [Int] = []
    public var grid: PolicyGrid
    /// Runs per cell, seeded `base.seed`, `base.seed + 1`, …
    public var seeds: Int
    /// The policy the SDK ships (always swept, and marked in the results).
    public var defaultPolicy: PolicyPoint
    public var quick: TuneQuick?
    /// What the app's user tolerates: the deadline of a send, the latency quantile compared.
    public var objective = TuneObjective()
    /// The file it came from.
    public var file = ""
    /// What `--quick` cut from the file's sweep ("1 of 3 seeds, 3 of 5 environments"); nil for the
    /// whole sweep. A reduced sweep recommends nothing (docs/tune.md, "Quick is not a decision").
    public var reduced: String?

    /// At most this many (policy, environment) cells, and runs (cells × seeds), per sweep.
    public static let maxCells = 2000
    public static let maxRuns = 20_000
    /// A scale is 1-1,000 client instances; a file lists at most 8.
    public static let clientCounts = 1...1000
    public static let maxScales = 8

    /// The environments the cells run in: each of the file's at each of `clients`, in the file's
    /// order, the scales ascending within one. With more than one scale a copy is named
    /// `outage-10s@16` and keeps the file's name as its `incident`.
    public var scaledEnvironments: [TuneEnvironment] {
        guard !clients.isEmpty else { return environments }
        return environments.flatMap { environment in
            clients.map { count in
                var copy = environment
                copy.instances = count
                if clients.count > 1 {
                    copy.name = "\(environment.name)@\(count)"
                    copy.incident = environment.name
                }
                return copy
            }
        }
    }

    /// The client instances an environment's cells run with.
    func scale(of environment: TuneEnvironment) -> Int { environment.instances ?? base.client.instances }

    /// How many policies the sweep has, from the grid's counts (its values are distinct, checked
    /// when the file is read), without making them: at most 100^4 + 1.
    var policyCount: Int {
        // Listed points are at most 1,000 × 100 budgets: made and counted.
        if grid.points != nil { return policies.count }
        let hasDefault =
            (grid.maxRetries?.contains(defaultPolicy.maxRetries) ?? true)
            && (grid.baseDelay?.contains(defaultPolicy.baseDelay) ?? true)
            && (grid.maxDelay?.contains(defaultPolicy.maxDelay) ?? true)
            && (grid.timeout?.contains(defaultPolicy.timeout) ?? true)
            && (grid.budget?.contains(defaultPolicy.budget) ?? true)
        return grid.count + (hasDefault ? 0 : 1)
    }

    /// The policies of the sweep: the grid, plus the default when the grid lacks it.
    public var policies: [PolicyPoint] {
        var points = grid.points(filling: defaultPolicy)
        if !points.contains(defaultPolicy) { points.append(defaultPolicy) }
        return points
    }

    /// The scenario of one run of one cell.
    public func scenario(policy: PolicyPoint, environment: TuneEnvironment, seed: Int) -> Scenario {
        var scenario = base
        // A scenario name is letters, digits, - and _ (a label may hold a decimal point).
        scenario.name = "\(name)-\(environment.name)-\(policy.label)".replacingOccurrences(of: ".", with: "_")
            .replacingOccurrences(of: "@", with: "-at")
        scenario.description = environment.description
        scenario.seed = base.seed &+ UInt64(seed)
        scenario.client.maxRetries = policy.maxRetries
        scenario.client.baseDelay = policy.baseDelay
        scenario.client.maxDelay = policy.maxDelay
        scenario.client.timeout = policy.timeout
        scenario.client.budget = policy.budget
        scenario.plan = environment.plan(over: base.plan)
        if let load = environment.load { scenario.load = load }
        scenario.metastability = environment.metastability
        if let instances = environment.instances { scenario.client.instances = instances }
        scenario.probes = [.outcome, .idempotency]
        scenario.assertions = []
        scenario.quick = nil
        return scenario
    }

    /// The sweep `--quick` runs: the `quick` block's seeds, grid and environments (one seed without
    /// a block), with what it cut from the file's sweep in `reduced`.
    public func quickened() -> TuneFile {
        var copy = self
        if let quick {
            if let seeds = quick.seeds { copy.seeds = seeds }
            if let grid = quick.grid { copy.grid = grid }
            if let names = quick.environments { copy.environments = environments.filter { names.contains($0.name) } }
            if let duration = quick.duration { copy.base.load.duration = duration }
            if let clients = quick.clients { copy.clients = clients }
        } else {
            copy.seeds = 1
        }
        var cut: [String] = []
        if copy.seeds < seeds { cut.append("\(copy.seeds) of \(seeds) seeds") }
        if copy.environments.count < environments.count {
            cut.append("\(copy.environments.count) of \(environments.count) environments")
        }
        if copy.clients != clients {
            let (kept, whole) = (copy.clients.map(String.init), clients.map(String.init))
            cut.append("clients \(kept.joined(separator: ", ")), not \(whole.joined(separator: ", "))")
        }
        if copy.grid != grid {
            // Counted before any is made: the quick grid's size is checked after this (at most 100^4).
            let (count, whole) = (copy.policyCount, policyCount)
            let kept = count <= Self.maxCells ? Set(copy.policies) : nil
            let all = whole <= Self.maxCells ? Set(policies) : nil
            if let kept, let all, kept == all {
                // Another spelling of the same policies: nothing cut.
            } else if let kept, let all, kept.isSubset(of: all) {
                cut.append("\(count) of \(whole) policies")
            } else {
                cut.append("a grid of \(count) policies, not the file's \(whole)")
            }
        }
        if copy.base.load.duration != base.load.duration {
            cut.append(
                "runs of \(copy.base.load.duration.map(PolicyPoint.short) ?? "no set length"), not \(base.load.duration.map(PolicyPoint.short) ?? "no set length")"
            )
        }
        copy.reduced = cut.isEmpty ? nil : cut.joined(separator: ", ")
        return copy
    }
}

/// One policy in policy units.
public struct PolicyPoint: Sendable, Hashable, Comparable {
    public var maxRetries: Int
    public var baseDelay: TimeSpan
    public var maxDelay: TimeSpan
    public var timeout: TimeSpan
    /// The client-wide retry budget (none by default).
    public var budget: BudgetSetting

    public init(
        maxRetries: Int, baseDelay: TimeSpan, maxDelay: TimeSpan, timeout: TimeSpan, budget: BudgetSetting = .none
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.timeout = timeout
        self.budget = budget
    }

    /// The guide's default: `RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10)`, 15 s timeout
    /// (what `ClientSettings` starts from).
    public static let sdkDefault: PolicyPoint = {
        let client = ClientSettings()
        return PolicyPoint(
            maxRetries: client.maxRetries, baseDelay: client.baseDelay, maxDelay: client.maxDelay,
            timeout: client.timeout)
    }()

    /// `r3-b300ms-m10s-t15s`, `r3-b300ms-m10s-t15s-budget20pct`: names the cell in files and on screen.
    public var label: String {
        "r\(maxRetries)-b\(Self.short(baseDelay))-m\(Self.short(maxDelay))-t\(Self.short(timeout))"
            + budget.labelSuffix
    }

    /// A duration in the unit that keeps it short, without binary noise: `300ms`, `1.5s`, `9ms`.
    static func short(_ span: TimeSpan) -> String {
        let seconds = span.seconds
        let (value, unit) = seconds >= 1 || seconds == 0 ? (seconds, "s") : (seconds * 1000, "ms")
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + unit
    }

    public static func < (lhs: PolicyPoint, rhs: PolicyPoint) -> Bool {
        let left = (lhs.maxRetries, lhs.baseDelay.seconds, lhs.maxDelay.seconds, lhs.timeout.seconds)
        let right = (rhs.maxRetries, rhs.baseDelay.seconds, rhs.maxDelay.seconds, rhs.timeout.seconds)
        return left < right || (left == right && lhs.budget < rhs.budget)
    }
}

/// The values to cross; a field left out takes the default policy's value.
public struct PolicyGrid: Sendable, Hashable {
    public var maxRetries: [Int]?
    public var baseDelay: [TimeSpan]?
    public var maxDelay: [TimeSpan]?
    public var timeout: [TimeSpan]?
    public var budget: [BudgetSetting]?
    /// Policies listed instead of crossed (each crossed with `budget` only); the four axes are
    /// then absent.
    public var points: [PolicyPoint]?

    public init(
        maxRetries: [Int]? = nil, baseDelay: [TimeSpan]? = nil, maxDelay: [TimeSpan]? = nil,
        timeout: [TimeSpan]? = nil, budget: [BudgetSetting]? = nil
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.timeout = timeout
        self.budget = budget
    }

    /// How many policies the grid makes.
    public var count: Int {
        if let points { return points.count * max(1, budget?.count ?? 1) }
        return [maxRetries?.count, baseDelay?.count, maxDelay?.count, timeout?.count, budget?.count].reduce(1) {
            $0 * max(1, $1 ?? 1)
        }
    }

    /// Every combination, in order (distinct values only).
    public func points(filling base: PolicyPoint) -> [PolicyPoint] {
        var points: [PolicyPoint] = []
        var seen: Set<PolicyPoint> = []
        if let listed = self.points {
            for var point in listed {
                for budget in budget ?? [point.budget] {
                    point.budget = budget
                    if seen.insert(point).inserted { points.append(point) }
                }
            }
            return points
        }
        for retries in maxRetries ?? [base.maxRetries] {
            for baseDelay in baseDelay ?? [base.baseDelay] {
                for maxDelay in maxDelay ?? [base.maxDelay] {
                    for timeout in timeout ?? [base.timeout] {
                        for budget in budget ?? [base.budget] {
                            let point = PolicyPoint(
                                maxRetries: retries, baseDelay: baseDelay, maxDelay: maxDelay, timeout: timeout,
                                budget: budget)
                            if seen.insert(point).inserted { points.append(point) }
                        }
                    }
                }
            }
        }
        return points
    }
}

/// One fault environment: rules added after the base plan's, and (optionally) a capacity model
/// replacing the base's, with a metastability judgement when it has a trigger.
public struct TuneEnvironment: Sendable, Hashable {
    public var name: String
    public var description: String
    public var rules: [FaultRule]
    public var capacity: CapacityModel?
    public var metastability: MetastabilitySettings?
    /// The load of this environment's runs, replacing the base's (a burst, a storm at another rate).
    public var load: LoadSettings?
    /// Its place in the metastability map: the offered load as a fraction of capacity and the
    /// length of the capacity drop.
    public var map: MapPoint?
    /// The `Frontmail` instances the load is spread over, each with its own retry budget (the
    /// base's when absent).
    public var instances: Int?
    /// The file's environment this one is a scaled copy of (`TuneFile.scaledEnvironments`); nil
    /// for the file's own.
    public var incident: String?
    /// How much this incident counts in the decision (its frequency, in any unit the file's
    /// environments share): every sum of the rule over environments is weighted by it (nil: 1).
    public var weight: Double?

    /// A weight of 1e-6 to 1e6: an incident counted a million times another's is a file to split.
    public static let weights = 1e-6...1e6

    public struct MapPoint: Sendable, Hashable {
        public var load: Double
        public var drop: TimeSpan
    }

    func plan(over base: FaultPlan) -> FaultPlan {
        FaultPlan(rules: base.rules + rules, capacity: capacity ?? base.capacity)
    }

    /// An outage the analytic model describes: one rule that refuses every connection from `from`
    /// (0 when absent) to `to`, and nothing else. Its window in seconds, or nil.
    var outageWindow: (from: Double, to: Double)? {
        guard rules.count == 1, let rule = rules.first, rule.limit == nil, rule.action.kind == .refuse,
            let to = rule.match.to
        else { return nil }
        var bare = rule.match
        bare.from = nil
        bare.to = nil
        guard bare == FaultMatch() else { return nil }
        return (rule.match.from?.seconds ?? 0, to.seconds)
    }

    /// An independent brownout the analytic model describes: one rule on sends, matching with a
    /// probability only, answering a retryable 5xx with no Retry-After. Its probability, or nil.
    var brownoutProbability: Double? {
        guard rules.count == 1, let rule = rules.first, rule.limit == nil, let probability = rule.match.probability
        else { return nil }
        var bare = rule.match
        bare.probability = nil
        bare.endpoint = nil
        guard bare == FaultMatch(), rule.match.endpoint == .send || rule.match.endpoint == nil else { return nil }
        let action = rule.action
        guard action.kind == .respond, let status = action.status, [500, 502, 503, 504].contains(status),
            action.retryAfter == nil, action.body == nil, action.delay == nil
        else { return nil }
        return probability
    }
}

/// What `--quick` changes.
public struct TuneQuick: Sendable, Hashable {
    public var seeds: Int?
    public var grid: PolicyGrid?
    /// Only these environments (by name).
    public var environments: [String]?
    /// These scales instead of the file's `clients`.
    public var clients: [Int]?
    /// The base load's duration.
    public var duration: TimeSpan?
}

/// What the app's user tolerates (docs/tune.md, "Deadlines").
public struct TuneObjective: Sendable, Hashable {
    /// A send that succeeds later than this after it was due counts as failed for the user (nil:
    /// any success counts).
    public var deadline: TimeSpan?
    /// The latency quantile of the sends that succeeded in time that the rule compares.
    public var quantile = 0.99
    /// Other deadlines to decide under as well, from the same runs (`deadlines.csv`).
    public var compare: [TimeSpan] = []

    public init(deadline: TimeSpan? = nil, quantile: Double = 0.99, compare: [TimeSpan] = []) {
        self.deadline = deadline
        self.quantile = quantile
        self.compare = compare
    }

    /// The objective itself, then each compared deadline, then no deadline: each once.
    public var alternatives: [TuneObjective] {
        var list = [TuneObjective(deadline: deadline, quantile: quantile)]
        for other in compare.map(Optional.some) + [nil] where !list.contains(where: { $0.deadline == other }) {
            list.append(TuneObjective(deadline: other, quantile: quantile))
        }
        return list
    }

    /// The deadline in policy milliseconds (infinity: none).
    var deadlineMs: Double { deadline.map { $0.seconds * 1000 } ?? .infinity }

    /// `30s`, or `none`.
    public var deadlineText: String { deadline.map { PolicyPoint.short($0) } ?? "none" }
}
