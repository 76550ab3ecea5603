import FakeFrontmail
import Frontmail

/// The probes that judge a load, each from the client's history and the server's ledger.
public enum ProbeKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Backoff delays: KS test against U(0,1), Retry-After exactness, realized gaps.
    case jitter
    /// The Jepsen-style history check against the server's ledger.
    case idempotency
    /// Success rate, error codes, attempts per send, latency, throughput, amplification.
    case outcome
}

/// The names assertions can use: fixed names per probe, plus per-code error counts.
public enum MetricCatalog {
    public static let names: [ProbeKind: Set<String>] = [
        .idempotency: [
            "idempotency.sends", "idempotency.effects", "idempotency.duplicates", "idempotency.lost",
            "idempotency.unexpected", "idempotency.fail_with_effect", "idempotency.info_with_effect",
            "idempotency.message_id_mismatches", "idempotency.key_changes", "idempotency.body_changes",
            "idempotency.key_collisions", "idempotency.defects",
        ],
        .jitter: [
            "jitter.samples", "jitter.ks_d", "jitter.ks_critical", "jitter.ks_critical_01", "jitter.ks_critical_001",
            "jitter.ks_p",
            "jitter.mean",
            "jitter.variance", "jitter.retry_after_waits", "jitter.retry_after_mismatches", "jitter.over_limit_retried",
            "jitter.early_retries", "jitter.cap_mismatches", "jitter.realized_samples", "jitter.realized_dependence",
            "jitter.overshoot.p50", "jitter.overshoot.p99", "jitter.overshoot.max",
        ],
        .outcome: [
            "send.sends", "send.ok", "send.failed", "send.success_rate", "send.dropped", "send.throughput",
            "send.latency.p50", "send.latency.p90", "send.latency.p99", "send.latency.p99.9", "send.latency.max",
            "attempts_per_send.mean", "attempts_per_send.max", "attempts_per_send.p99", "attempts.unreported",
            "attempts.unseen", "load.amplification",
            "load.server_requests",
        ],
    ]

    /// What every load reports second by second (`timeseries.*`).
    public static let timeseriesNames: Set<String> = [
        "timeseries.seconds", "timeseries.peak_arrivals", "timeseries.peak_load", "timeseries.peak_queue_depth",
        "timeseries.dead_work", "timeseries.dropped_unprocessed",
    ]

    /// What a `metastability` section reports.
    public static let metastabilityNames: Set<String> = [
        "metastability.verdict", "metastability.recovery_s", "metastability.goodput_before",
        "metastability.goodput_after", "metastability.peak_load", "metastability.dead_work",
        "metastability.trigger_s", "metastability.restore_s",
    ]

    static let examples = "idempotency.duplicates, jitter.ks_d, send.success_rate, attempts_per_send.max"

    /// What produces a metric.
    public enum Source: Sendable, Hashable {
        case probe(ProbeKind)
        /// The cancellation experiment (`cancellation.*`).
        case cancellation
        /// The calibration of a load's rate (`calibration.*`).
        case calibration
        /// The per-second series of a load (`timeseries.*`).
        case timeseries
        /// A load's `metastability` section (`metastability.*`).
        case metastability
    }

    /// Who produces `name`; nil for a name nothing produces.
    public static func source(of name: String) -> Source? {
        if name.hasPrefix("send.errors.") || name.hasPrefix("attempts.errors.") { return .probe(.outcome) }
        if name.hasPrefix("cancellation.") { return .cancellation }
        if name.hasPrefix("calibration.") { return .calibration }
        if timeseriesNames.contains(name) { return .timeseries }
        if metastabilityNames.contains(name) { return .metastability }
        for base in ["jitter.ks_d", "jitter.ks_critical_001", "jitter.ks_critical", "jitter.ks_p", "jitter.samples"]
        where name.hasPrefix(base + ".attempt") && Int(name.dropFirst(base.count + 8)) != nil {
            return .probe(.jitter)
        }
        return names.first { $0.value.contains(name) }.map { .probe($0.key) }
    }

    /// Counts that did not occur are 0; anything else missing is NaN (and fails).
    static func defaultValue(_ name: String) -> Double {
        name.hasPrefix("send.errors.") || name.hasPrefix("attempts.errors.") ? 0 : .nan
    }
}

extension MetricCatalog {
    /// Statistics of every cancellation cell (`cancellation.<phase>.<idle|load>.<statistic>`).
    static let cancellationStatistics: Set<String> = [
        "p50", "p90", "p99", "p99.9", "max", "aborted_ratio", "finished_before_cancel", "attempts_after_cancel",
        "server_retries_after_cancel",
        "arrivals_after_cancel", "server_close_p50", "resident_growth", "background_load", "reference_p50",
        "reference_p99", "reference_max",
    ]

    /// What the memory soak reports, in flight and in a backoff (`cancellation.soak.<name>`).
    static let soakStatistics: Set<String> = [
        "resident_growth", "heap_growth", "growth_per_1k", "backoff_resident_growth", "backoff_heap_growth",
        "backoff_growth_per_1k",
    ]
}
