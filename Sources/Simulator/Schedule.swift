/// How a simulated run orders the jobs that are ready at once and the timers due at one instant.
///
/// Virtual time fixes *when* things happen; the schedule decides in which order the jobs of one
/// instant run. `fifo` is the order they became ready in (the default of `run`: one order, the
/// most natural). `random` and `pct` explore other orders from a seed, so a bug that needs an
/// unusual interleaving (a check-then-act across an `await`) shows up; the same seed gives the
/// same order, to the byte.
public struct Schedule: Sendable, Hashable, CustomStringConvertible {
    public enum Policy: Sendable, Hashable {
        /// First ready, first run; timers due at one instant fire in the order they were set.
        case fifo
        /// A seeded choice among the ready jobs at every step, and a seeded order of the timers
        /// due at one instant.
        case random
        /// Probabilistic concurrency testing: every task gets a random priority, the highest ready
        /// one always runs, and at `depth - 1` steps drawn at random the running task drops below
        /// every other. A bug that needs `depth` ordering constraints is found with probability at
        /// least 1 / (tasks × steps^(depth-1)) per run.
        case pct(depth: Int)
    }

    public var policy: Policy
    /// The schedule's own seed (the run derives it from the scenario's).
    public var seed: UInt64
    /// PCT: how many steps (jobs) the change points are drawn from, the run's expected length.
    public var steps: Int

    public static let fifo = Schedule(policy: .fifo)
    /// The depths `pct:D` accepts.
    public static let depths = 1...20
    /// The depth of a bare `pct`.
    public static let defaultDepth = 3
    /// The step counts a PCT schedule accepts.
    public static let stepCounts = 1...100_000_000

    public init(policy: Policy, seed: UInt64 = 0, steps: Int = 10_000) {
        self.policy = policy
        self.seed = seed
        self.steps = min(max(steps, Self.stepCounts.lowerBound), Self.stepCounts.upperBound)
    }

    /// `fifo`, `random`, `pct` (depth 3) or `pct:D` (D from 1 to 20); nil for anything else.
    public static func policy(parsing text: String) -> Policy? {
        switch text {
        case "fifo": return .fifo
        case "random": return .random
        case "pct": return .pct(depth: defaultDepth)
        default:
            guard text.hasPrefix("pct:"), text.count <= 6, let depth = Int(text.dropFirst(4)),
                depths.contains(depth), String(depth) == text.dropFirst(4)
            else { return nil }
            return .pct(depth: depth)
        }
    }

    /// As `policy(parsing:)` reads it: `fifo`, `random`, `pct:3`.
    public static func spelled(_ policy: Policy) -> String {
        switch policy {
        case .fifo: "fifo"
        case .random: "random"
        case .pct(let depth): "pct:\(depth)"
        }
    }

    public var description: String {
        switch policy {
        case .fifo: "fifo"
        case .random: "random (seed \(seed))"
        case .pct(let depth): "pct:\(depth) (seed \(seed), \(steps) steps)"
        }
    }
}

/// SplitMix64: the schedule's own stream (the Simulator depends on no other module's generator).
struct ScheduleRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<bound (bound > 0; the modulo's bias is under 2^-40 for the bounds of a run).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
