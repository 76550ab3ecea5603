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

/// The one catalog of every metric the suite writes (`probe.metric.statistic` of the summary CSV):
/// `compare` judges by it, and a test fails when a run writes a row it does not declare.
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

    static let histogramStatistics: Set<String> = ["mean", "p50", "p90", "p99", "p99.9", "max"]

    /// First match wins: the scenario probes first, then the benchmarks (whose probe is a group name).
    static let rules: [Rule] = [
        // send and attempts (the outcome probe)
        Rule(
            probe: .one(["send"]), metric: .one(["success_rate", "throughput"]), statistic: .one(["value"]),
            policy: .higher),
        Rule(probe: .one(["send"]), metric: .one(["dropped"]), statistic: .one(["value"]), policy: .lower),
        Rule(
            probe: .one(["send"]), metric: .one(["sends", "ok", "failed"]), statistic: .one(["value"]), policy: .info),
        Rule(probe: .one(["send", "attempts"]), metric: .one(["errors"]), statistic: .any, policy: .info),
        // the SDK's count of its attempts against the server's: an invented attempt is a defect; a
        // request the SDK did not report may also be the transport's own retry (libcurl resends a
        // request on a reused connection that died before answering), so it is judged per scenario
        Rule(probe: .one(["attempts"]), metric: .one(["unseen"]), statistic: .one(["value"]), policy: .mustNotGrow),
        Rule(probe: .one(["attempts"]), metric: .one(["unreported"]), statistic: .one(["value"]), policy: .lower),
        Rule(
            probe: .one(["send"]), metric: .one(["latency", "attempts_per_send"]), statistic: .one(histogramStatistics),
            policy: .lower),
        Rule(
            probe: .one(["send"]), metric: .one(["latency", "attempts_per_send"]), statistic: .one(["count"]),
            policy: .info),
        Rule(probe: .one(["load"]), metric: .one(["amplification"]), statistic: .one(["value"]), policy: .lower),
        Rule(probe: .one(["load"]), metric: .one(["server_requests"]), statistic: .one(["value"]), policy: .info),
        // idempotency: every defect count is strict
        Rule(
            probe: .one(["idempotency"]),
            metric: .one([
                "duplicates", "lost", "unexpected", "fail_with_effect", "message_id_mismatches", "key_changes",
                "body_changes", "key_collisions", "defects",
            ]), statistic: .one(["value"]), policy: .mustNotGrow),
        Rule(
            probe: .one(["idempotency"]), metric: .one(["sends", "effects", "info_with_effect", "outcome"]),
            statistic: .any, policy: .info),
        // jitter: the client's defects are strict; statistics of a random sample are informational
        Rule(
            probe: .one(["jitter"]),
            metric: .one(["early_retries", "over_limit_retried", "retry_after_mismatches", "cap_mismatches"]),
            statistic: .one(["value"]), policy: .mustNotGrow),
        Rule(
            probe: .one(["jitter"]), metric: .one(["overshoot"]), statistic: .one(histogramStatistics), policy: .lower),
        Rule(
            probe: .one(["jitter"]),
            metric: .one([
                "overshoot", "samples", "ks_d", "ks_critical", "ks_critical_01", "ks_critical_001", "ks_p", "mean",
                "variance", "retry_after_waits", "realized_samples", "realized_dependence",
            ]), statistic: .any, policy: .info),
        // cancellation: the raw URLSession baseline is context, not the SDK's result
        Rule(probe: .one(["cancellation"]), metric: .prefix("raw_urlsession."), statistic: .any, policy: .info),
        Rule(
            probe: .one(["cancellation"]), metric: .one(["live_requests_after"]), statistic: .any, policy: .mustNotGrow),
        Rule(
            probe: .one(["cancellation"]), metric: .one(["soak"]),
            statistic: .one(MetricCatalog.soakStatistics),
            policy: .lower),
        Rule(probe: .one(["cancellation"]), metric: .one(["soak"]), statistic: .one(["cancellations"]), policy: .info),
        Rule(
            probe: .one(["cancellation"]), metric: .any,
            statistic: .one(["attempts_after_cancel", "server_retries_after_cancel"]), policy: .mustNotGrow),
        Rule(probe: .one(["cancellation"]), metric: .any, statistic: .one(["aborted_ratio"]), policy: .mustNotShrink),
        Rule(
            probe: .one(["cancellation"]), metric: .any,
            statistic: .one(histogramStatistics.union(["server_close_p50", "resident_growth"])), policy: .lower),
        Rule(
            probe: .one(["cancellation"]), metric: .any,
            statistic: .one([
                "count", "finished_before_cancel", "arrivals_after_cancel", "background_load", "reference_p50",
                "reference_p99", "reference_max",
            ]),
            policy: .info),
        // the time series and the metastability figures, judged by which way is better
        Rule(
            probe: .one(["timeseries"]), metric: .one(["peak_load", "peak_queue_depth", "dead_work"]),
            statistic: .one(["value"]), policy: .lower),
        Rule(probe: .one(["timeseries"]), metric: .any, statistic: .any, policy: .info),
        // a verdict either way is what a scenario asserts (a retry storm must stay metastable)
        Rule(probe: .one(["metastability"]), metric: .one(["verdict"]), statistic: .any, policy: .info),
        Rule(
            probe: .one(["metastability"]), metric: .one(["recovery_s", "peak_load", "dead_work"]), statistic: .any,
            policy: .lower),
        Rule(probe: .one(["metastability"]), metric: .one(["goodput_after"]), statistic: .any, policy: .higher),
        Rule(probe: .one(["metastability"]), metric: .any, statistic: .any, policy: .info),
        // a sweep's cells (`tune`): correctness is strict, the rest judged by which way is better
        Rule(
            probe: .one(["cell"]), metric: .any, statistic: .one(["duplicates", "lost"]), policy: .mustNotGrow),
        Rule(probe: .one(["cell"]), metric: .any, statistic: .one(["success_rate"]), policy: .higher),
        Rule(
            probe: .one(["cell"]), metric: .any,
            statistic: .one([
                "latency_p50", "latency_p99", "latency_p99.9", "amplification", "peak_load", "dead_work", "recovery_s",
                "metastable",
            ]), policy: .lower),
        Rule(probe: .one(["cell"]), metric: .any, statistic: .any, policy: .info),
        Rule(probe: .one(["sanity"]), metric: .any, statistic: .one(["checks"]), policy: .info),
        Rule(probe: .one(["sanity"]), metric: .any, statistic: .any, policy: .mustNotGrow),
        // what a calibrated load was a fraction of
        Rule(probe: .one(["calibration"]), metric: .any, statistic: .any, policy: .info),
        // the run itself
        Rule(probe: .one(["run"]), metric: .one(["interrupted"]), statistic: .any, policy: .mustNotGrow),
        Rule(probe: .one(["run"]), metric: .one(["elapsed", "time_scale"]), statistic: .any, policy: .info),
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
            probe: .any, metric: .any, statistic: .one(["ops_per_s", "mb_per_s", "sends_per_s"]),
            policy: .absoluteHigher),
        Rule(probe: .any, metric: .any, statistic: .one(["p50_us", "p99_us"]), policy: .absoluteLower),
        Rule(probe: .any, metric: .any, statistic: .one(["failures"]), policy: .mustNotGrow),
        Rule(probe: .any, metric: .any, statistic: .one(["output_bytes"]), policy: .info),
    ]

    /// The declared policy of a row; nil when nothing declares it (a test keeps that from shipping).
    public static func policy(probe: String, metric: String, statistic: String) -> MetricPolicy? {
        rules.first { $0.probe.matches(probe) && $0.metric.matches(metric) && $0.statistic.matches(statistic) }?.policy
    }
}
