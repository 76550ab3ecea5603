import FakeFrontmail
import Foundation

/// `"metastability": {"window": "30s"}`: judge whether goodput comes back after a trigger (a
/// capacity drop) is removed. Times are policy seconds since the run's start; `trigger` and
/// `restore` default to the start of the plan's first capacity window and the end of its last.
public struct MetastabilitySettings: Sendable, Hashable {
    public var trigger: TimeSpan?
    public var restore: TimeSpan?
    /// How long after the restore goodput has to come back.
    public var window = TimeSpan(seconds: 30)
    /// The fraction of the pre-trigger goodput that counts as back.
    public var threshold = 0.9
    /// Goodput is averaged over this many seconds before it is compared.
    public var smooth = TimeSpan(seconds: 3)

    public init() {}

    /// Trigger and restore in policy seconds, from the fields or the plan's capacity schedule.
    func resolved(plan: FaultPlan) -> (trigger: Double, restore: Double)? {
        let schedule = plan.capacity?.schedule ?? []
        guard let trigger = trigger?.seconds ?? schedule.first?.from.seconds,
            let restore = restore?.seconds ?? schedule.last?.to.seconds
        else { return nil }
        return (trigger, restore)
    }

    func validate(path: String, scenario: Scenario) throws(InputError) {
        try InputError.check(window, path + ".window", positive: true)
        try InputError.check(smooth, path + ".smooth", positive: true)
        guard threshold > 0, threshold <= 1 else {
            throw InputError(path: path + ".threshold", reason: "must be more than 0 and at most 1")
        }
        if let trigger { try InputError.check(trigger, path + ".trigger") }
        if let restore { try InputError.check(restore, path + ".restore", positive: true) }
        guard let (trigger, restore) = resolved(plan: scenario.plan) else {
            throw InputError(
                path: path + ".trigger",
                reason: "the plan has no capacity schedule to take the trigger from; give trigger and restore")
        }
        guard trigger >= 2 else {
            throw InputError(
                path: path + ".trigger", reason: "must be at least 2 s (goodput before it is the baseline)")
        }
        guard restore > trigger else {
            throw InputError(
                path: path + ".restore", reason: "must be after the trigger (\(TimeSpan(seconds: trigger)))")
        }
        guard smooth.seconds <= window.seconds else {
            throw InputError(path: path + ".smooth", reason: "must be at most the window (\(window))")
        }
        guard case .load = scenario.experiment, scenario.load.kind == .open, scenario.load.policyTime else {
            throw InputError(
                path: path,
                reason:
                    "judges an open load written in policy time (load: {\"type\": \"open\", \"policyTime\": true, …})")
        }
        let length = scenario.load.policyLength
        guard length >= restore + window.seconds else {
            throw InputError(
                path: path + ".window",
                reason:
                    "the load ends at \(TimeSpan(seconds: length)), before the window does (restore \(TimeSpan(seconds: restore)) + \(window))"
            )
        }
    }
}

extension MetastabilitySettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["trigger", "restore", "window", "threshold", "smooth"])
        self.init()
        trigger = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("trigger"))
        restore = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("restore"))
        window = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("window")) ?? window
        threshold = try container.decodeIfPresent(Double.self, forKey: AnyKey("threshold")) ?? threshold
        smooth = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("smooth")) ?? smooth
    }
}

/// Recovered or metastable, from goodput per policy second (sends ending ok).
struct MetastabilityVerdict: Sendable, Hashable {
    /// Mean goodput over the second half of the time before the trigger.
    var baseline: Double
    /// Seconds from the restore until smoothed goodput is back to `threshold × baseline`; nil: never
    /// within the window.
    var recovery: Double?
    /// Mean goodput over the last `smooth` seconds of the window.
    var after: Double

    var metastable: Bool { recovery == nil }

    /// The seconds the baseline averages: the second half of those before the trigger.
    static func baselineSeconds(trigger: Double) -> Range<Int> {
        let second = Int(trigger.rounded(.down))
        return max(0, second / 2)..<max(1, second)
    }

    init(goodput: [Double], trigger: Double, restore: Double, window: Double, smooth: Double, threshold: Double) {
        func mean(_ range: Range<Int>) -> Double {
            let clipped = max(0, range.lowerBound)..<max(max(0, range.lowerBound), range.upperBound)
            guard !clipped.isEmpty else { return 0 }
            var total = 0.0
            for second in clipped where second < goodput.count { total += goodput[second] }
            return total / Double(clipped.count)
        }
        baseline = mean(Self.baselineSeconds(trigger: trigger))
        let span = max(1, Int(smooth.rounded()))
        let first = Int(restore.rounded(.up))
        let last = Int((restore + window).rounded(.down))
        recovery = nil
        var second = first
        while second + span <= last {
            if mean(second..<(second + span)) >= threshold * baseline, baseline > 0 {
                recovery = Double(second) - restore
                break
            }
            second += 1
        }
        after = mean((last - span)..<last)
    }
}
