/// Which way a metric should move.
public enum Polarity: String, Sendable {
    case higherIsBetter = "higher"
    case lowerIsBetter = "lower"
    /// Not judged (counts of work done, elapsed time, sample sizes).
    case informational = "info"
}

/// How the regression gate judges one metric: which way is better, and whether any change at all
/// is a regression (correctness metrics and allocation counts).
public struct MetricPolicy: Sendable, Hashable {
    public var polarity: Polarity
    public var strict: Bool
    /// Measured only with an optional extra (allocation counts need jemalloc): `n/a` is a warning,
    /// not a regression, even for a strict metric.
    public var needsExtra = false
    /// An absolute benchmark timing: beyond its (gross) tolerance it warns, it does not fail. The
    /// gate judges the same-run ratios instead.
    public var warnOnly = false
    /// A change no larger than this, in the metric's own unit, is no change (allocation counts:
    /// counted on every thread, another thread's stray allocation now and then moves a count per
    /// call by a few hundredths; a change to the code moves it by whole allocations).
    public var slack = 0.0

    public static let info = MetricPolicy(polarity: .informational, strict: false)
    public static let lower = MetricPolicy(polarity: .lowerIsBetter, strict: false)
    public static let higher = MetricPolicy(polarity: .higherIsBetter, strict: false)
    /// Must not grow at all (a count of defects).
    public static let mustNotGrow = MetricPolicy(polarity: .lowerIsBetter, strict: true)
    /// Must not shrink at all (a ratio of correct outcomes).
    public static let mustNotShrink = MetricPolicy(polarity: .higherIsBetter, strict: true)
    /// Allocation counts: strict to a quarter of an allocation per call, `n/a` where jemalloc is
    /// not installed.
    public static let allocations = MetricPolicy(
        polarity: .lowerIsBetter, strict: true, needsExtra: true, slack: allocationSlack)
    /// Measured: the smallest of five batches of 50 calls of the send path, process-wide, moved by
    /// up to +0.04 allocations per call between runs of the same build.
    public static let allocationSlack = 0.25
    /// Absolute benchmark timings: reported, and only gross changes warn.
    public static let absoluteHigher = MetricPolicy(polarity: .higherIsBetter, strict: false, warnOnly: true)
    public static let absoluteLower = MetricPolicy(polarity: .lowerIsBetter, strict: false, warnOnly: true)
}

/// How `compare` judges every row the suite writes (`probe.metric.statistic` of the summary CSV): a
/// scenario's and a sweep's rows by their `MetricCatalog` entry, the benchmarks' by the rules
/// below. A test fails when a run writes a row neither declares.
public enum MetricPolicies {
    enum Name: Sendable {
        case any
        case one(Set<String>)
        case prefix(String)
        case suffix(String)

        func matches(_ text: String) -> Bool {
            switch self {
            case .any: return true
            case .one(let names): return names.contains(text)
            case .prefix(let prefix): return text.hasPrefix(prefix)
            case .suffix(let suffix): return text.hasSuffix(suffix)
            }
        }
    }

    struct Rule: Sendable {
        var probe: Name
        var metric: Name
        var statistic: Name
        var policy: MetricPolicy
    }

    /// The benchmarks' baselines: what our code is measured against.
    static let referenceSubjects: Set<String> = [
        "json_encoder", "json_serialization", "foundation_base64", "memcpy", "canned_reference",
    ]

    /// First match wins: the benchmarks' rows (whose probe is a group name). A scenario's and a
    /// sweep's rows are not here: each is declared in `MetricCatalog`.
    static let rules: [Rule] = [
        // what a calibrated load was a fraction of
        Rule(probe: .one(["calibration"]), metric: .any, statistic: .any, policy: .info),
        // benchmarks (probe = the group, metric = the subject); the allocations of the baselines
        // (Foundation's encoders, memcpy, the hand-written reference client) and of a positive
        // control are context, not our code
        Rule(
            probe: .any, metric: .one(referenceSubjects), statistic: .one(["allocs_per_op", "alloc_bytes_per_op"]),
            policy: .info),
        Rule(
            probe: .any, metric: .suffix("_control"), statistic: .one(["allocs_per_op", "alloc_bytes_per_op"]),
            policy: .info),
        Rule(
            probe: .any, metric: .any, statistic: .one(["allocs_per_op", "alloc_bytes_per_op"]), policy: .allocations),
        // a positive control is judged against its real workload's baseline (compare's controls),
        // not against the baseline's control
        Rule(probe: .any, metric: .suffix("_control"), statistic: .prefix("ratio_vs_"), policy: .info),
        Rule(probe: .any, metric: .any, statistic: .prefix("ratio_vs_"), policy: .higher),
        Rule(
            probe: .any, metric: .any,
            statistic: .one(["control_slowdown", "control_measured", "smallest_detectable", "rounds"]), policy: .info),
        Rule(probe: .any, metric: .any, statistic: .prefix("spread_vs_"), policy: .info),
        // the same ratios measured by the allocation pass, under jemalloc: context for the shift
        Rule(probe: .any, metric: .any, statistic: .prefix("jemalloc_ratio_vs_"), policy: .info),
        Rule(
            probe: .any, metric: .any, statistic: .one(["ops_per_s", "mb_per_s", "sends_per_s", "sends_per_wall_s"]),
            policy: .absoluteHigher),
        Rule(probe: .any, metric: .any, statistic: .one(["p50_us", "p99_us"]), policy: .absoluteLower),
        Rule(probe: .any, metric: .any, statistic: .one(["failures"]), policy: .mustNotGrow),
        Rule(probe: .any, metric: .any, statistic: .one(["output_bytes"]), policy: .info),
    ]

    /// The declared policy of a row; nil when nothing declares it (a test keeps that from shipping).
    public static func policy(probe: String, metric: String, statistic: String) -> MetricPolicy? {
        if let declared = MetricCatalog.metric(probe: probe, metric: metric, statistic: statistic) {
            return declared.policy
        }
        return rules.first { $0.probe.matches(probe) && $0.metric.matches(metric) && $0.statistic.matches(statistic) }?
            .policy
    }
}
