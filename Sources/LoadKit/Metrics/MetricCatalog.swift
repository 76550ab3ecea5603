/// The probes that judge a load, each from the client's history and the server's ledger.
public enum ProbeKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Backoff delays: KS test against U(0,1), Retry-After exactness, realized gaps.
    case jitter
    /// The Jepsen-style history check against the server's ledger.
    case idempotency
    /// Success rate, error codes, attempts per send, latency, throughput, amplification.
    case outcome
}

/// Every metric a scenario run writes, each declared once (`all`): what the probes record, the
/// names assertions use and `list --metrics` prints (in the order of docs/scenarios.md), and the
/// policy the regression gate judges each row by. Adding a metric is one entry here and the line
/// of its producer that records it.
public enum MetricCatalog {
    /// What produces a metric.
    public enum Source: Sendable, Hashable {
        case probe(ProbeKind)
        /// The cancellation experiment (`cancellation.*`).
        case cancellation
        /// The calibration of a load's rate (`calibration.*`).
        case calibration
        /// A load's control arm (`control.*`).
        case control
        /// A load's status reads (`status.*`, a `status` section).
        case status
        /// The per-second series of a load (`timeseries.*`).
        case timeseries
        /// A load's `metastability` section (`metastability.*`).
        case metastability
        /// The run itself (`run.*`: elapsed time, time scale, interruption, shards); rows only.
        case run
    }

    /// The catalog.
    public static let all: [Metric] =
        outcome + idempotency + jitter + calibration + control + status + timeseries + metastability
        + cancellation + run

    // MARK: The entries

    static let outcome: [Metric] = {
        let source = Source.probe(.outcome)
        var list = [
            value("send.sends", "sends", .info, source), value("send.ok", "sends", .info, source),
            value("send.failed", "sends", .info, source), value("send.success_rate", "ratio", .higher, source),
            value("send.dropped", "sends", .lower, source), value("send.throughput", "sends/s", .higher, source),
            named("send.errors.<code>", row: ("send", "errors", "<code>"), "sends", .info, source),
            named("attempts.errors.<code>", row: ("attempts", "errors", "<code>"), "attempts", .info, source),
        ]
        list += histogram(
            "send", "latency", "policy_ms", source, names: ["p50", "p90", "p99", "p99.9", "max"],
            prefix: "send.latency")
        list += histogram(
            "send", "attempts_per_send", "attempts", source, names: ["mean", "p99", "max"],
            prefix: "attempts_per_send")
        // The SDK's count of its attempts against the server's: an invented attempt is a defect; a
        // request the SDK did not report may also be the transport's own retry (libcurl resends a
        // request on a reused connection that died before answering), so it is judged per scenario.
        list += [
            value("send.errors_checked", "sends", .info, source),
            value("send.error_mismatches", "sends", .mustNotGrow, source),
            value("attempts.unreported", "requests", .lower, source),
            value("attempts.unseen", "attempts", .mustNotGrow, source),
            value("load.server_requests", "requests", .info, source),
            value("load.amplification", "requests/send", .lower, source),
            value("retry.budget_refused", "retries", .info, source),
            // The bucket replayed over the ledger (virtual time, a client with a budget: BudgetReplay).
            value("retry.exact_budget_decisions", "retries", .info, source),
            value("retry.exact_budget_refusals", "retries", .info, source),
            value("retry.exact_budget_violations", "retries", .mustNotGrow, source),
        ]
        return list
    }()

    /// Every defect count is strict.
    static let idempotency: [Metric] = {
        let source = Source.probe(.idempotency)
        var list = [
            value("idempotency.sends", "sends", .info, source), value("idempotency.effects", "messages", .info, source),
        ]
        for (name, unit) in [("duplicates", "sends"), ("lost", "sends"), ("unexpected", "messages")] {
            list.append(value("idempotency.\(name)", unit, .mustNotGrow, source))
        }
        list += [
            value("idempotency.fail_with_effect", "sends", .mustNotGrow, source),
            value("idempotency.info_with_effect", "sends", .info, source),
        ]
        for (name, unit) in [
            ("message_id_mismatches", "sends"), ("key_changes", "sends"), ("body_changes", "sends"),
            ("key_collisions", "keys"), ("defects", "requests"),
        ] {
            list.append(value("idempotency.\(name)", unit, .mustNotGrow, source))
        }
        // What SDK-made keys look like (an explicit key pool's are the harness's).
        list.append(value("idempotency.keys_not_v4", "keys", .mustNotGrow, source))
        list.append(value("idempotency.key_bit_bias", "z", .info, source))
        list.append(row("idempotency", "outcome", "<verdict>", "sends", .info, source))
        // The `fidelity` payload: every received body against the one the driver intended.
        list.append(value("payload.checked", "requests", .info, source))
        list.append(value("payload.mismatches", "requests", .mustNotGrow, source))
        return list
    }()

    /// The client's defects are strict; statistics of a random sample are informational.
    static let jitter: [Metric] = {
        let source = Source.probe(.jitter)
        var list: [Metric] = [
            value("jitter.samples", "delays", .info, source), value("jitter.ks_d", "D", .info, source),
            value("jitter.ks_critical", "D", .info, source), value("jitter.ks_critical_01", "D", .info, source),
            value("jitter.ks_critical_001", "D", .info, source), value("jitter.ks_p", "p", .info, source),
            value("jitter.mean", "x cap", .info, source), value("jitter.variance", "x cap^2", .info, source),
            row("jitter", "mean", "expected", "x cap", .info, source),
            row("jitter", "variance", "expected", "x cap^2", .info, source),
        ]
        for (name, unit) in [
            ("samples", "delays"), ("ks_d", "D"), ("ks_critical", "D"), ("ks_critical_001", "D"), ("ks_p", "p"),
        ] {
            list.append(named("jitter.\(name).attempt<N>", row: ("jitter", name, "attempt<N>"), unit, .info, source))
        }
        list += [
            value("jitter.retry_after_waits", "waits", .info, source),
            value("jitter.retry_after_mismatches", "waits", .mustNotGrow, source),
            value("jitter.over_limit_retried", "sends", .mustNotGrow, source),
            value("jitter.early_retries", "retries", .mustNotGrow, source),
            value("jitter.cap_mismatches", "retries", .mustNotGrow, source),
            value("jitter.realized_samples", "retries", .info, source),
            value("jitter.realized_dependence", "z", .info, source),
            value("jitter.pair_samples", "pairs", .info, source),
            value("jitter.pair_dependence", "z", .info, source),
            // Virtual time only: exact, from the server's ledger alone (JitterProbe+Exact).
            value("jitter.exact_retry_after_waits", "waits", .info, source),
            value("jitter.exact_retry_after_gap_errors", "waits", .mustNotGrow, source),
            value("jitter.exact_realized_samples", "retries", .info, source),
            value("jitter.exact_realized_ks_d", "D", .info, source),
            value("jitter.exact_realized_ks_critical_001", "D", .info, source),
            value("attempts.exact_timeouts", "attempts", .info, source),
            value("attempts.exact_timeout_mismatches", "attempts", .mustNotGrow, source),
        ]
        list += histogram(
            "jitter", "overshoot", "ms", source, names: ["p50", "p99", "max"], prefix: "jitter.overshoot")
        return list
    }()

    /// What a calibrated load was a fraction of.
    static let calibration: [Metric] = [
        named(
            "calibration.<reference>.throughput", row: ("calibration", "<reference>", "throughput"), "sends/s",
            .info, .calibration),
        named(
            "calibration.<reference>.window", row: ("calibration", "<reference>", "window"), "s", .info,
            .calibration),
        value("calibration.load.fraction", "ratio", .info, .calibration, statistic: "fraction"),
        value("calibration.load.rate", "sends/s", .info, .calibration, statistic: "rate"),
        row("calibration", "load", "processes", "processes", .info, .calibration),
    ]

    /// Plain URLSession beside the SDK's load, and what the SDK dropped beyond it.
    static let control: [Metric] =
        [
            value("control.sends", "requests", .info, .control), value("control.ok", "requests", .info, .control),
            value("control.failed", "requests", .info, .control),
            value("control.dropped", "requests", .info, .control),
            value("control.drop_rate", "ratio", .info, .control),
            value("control.throughput", "requests/s", .info, .control),
            value("control.excess_drop_rate", "ratio", .lower, .control),
        ]
        + histogram(
            "control", "latency", "ms", .control, names: ["p50", "p99", "max"], prefix: "control.latency",
            policy: .info)

    /// The status reads after the sends: success, 404s not retried, cancellation (StatusProbe).
    static let status: [Metric] = [
        value("status.reads", "reads", .info, .status), value("status.ok", "reads", .info, .status),
        value("status.success_rate", "ratio", .higher, .status),
        value("status.mismatched", "reads", .mustNotGrow, .status),
        named("status.errors.<code>", row: ("status", "errors", "<code>"), "reads", .info, .status),
        named(
            "status.attempt_errors.<code>", row: ("status", "attempt_errors", "<code>"), "attempts", .info, .status),
        value("status.attempts", "requests", .info, .status),
        value("status.unreported", "requests", .mustNotGrow, .status),
        value("status.defects", "requests", .mustNotGrow, .status),
        value("status.attempts_per_read.max", "requests", .lower, .status, statistic: "max"),
        value("status.unknown_reads", "reads", .info, .status),
        value("status.unknown_not_found", "reads", .info, .status),
        value("status.unknown_retried", "reads", .mustNotGrow, .status),
        value("status.unknown_misreported", "reads", .mustNotGrow, .status),
        value("status.cancelled", "reads", .info, .status),
        value("status.cancelled_not_aborted", "reads", .mustNotGrow, .status),
        value("status.attempts_after_cancel", "attempts", .mustNotGrow, .status),
        value("status.cancel_late.max", "policy_ms", .lower, .status, statistic: "max"),
    ]

    static let timeseries: [Metric] = [
        value("timeseries.seconds", "s", .info, .timeseries),
        value("timeseries.peak_arrivals", "requests", .info, .timeseries),
        value("timeseries.peak_load", "ratio", .lower, .timeseries),
        value("timeseries.peak_queue_depth", "requests", .lower, .timeseries),
        value("timeseries.dead_work", "requests", .lower, .timeseries),
        value("timeseries.dropped_unprocessed", "requests", .info, .timeseries),
    ]

    /// A verdict either way is what a scenario asserts (a retry storm must stay metastable).
    static let metastability: [Metric] = [
        value("metastability.verdict", "runs", .info, .metastability),
        value("metastability.recovery_s", "s", .lower, .metastability),
        value("metastability.goodput_before", "sends/s", .info, .metastability),
        value("metastability.goodput_after", "sends/s", .higher, .metastability),
        value("metastability.peak_load", "ratio", .lower, .metastability),
        value("metastability.dead_work", "requests", .lower, .metastability),
        value("metastability.trigger_s", "s", .info, .metastability),
        value("metastability.restore_s", "s", .info, .metastability),
    ]

    /// A cell is `cancellation.<phase>.<idle|load>.<statistic>`; the raw URLSession baseline is
    /// context, not the SDK's result.
    static let cancellation: [Metric] = {
        let cell = "<phase>.<idle|load>"
        let raw = "raw_urlsession.inFlight.<idle|load>"
        var list = histogram(
            "cancellation", cell, "ms", .cancellation, names: ["mean", "p50", "p90", "p99", "p99.9", "max"],
            prefix: "cancellation.\(cell)")
        let statistics: [(String, String, MetricPolicy)] = [
            ("aborted_ratio", "ratio", .mustNotShrink), ("finished_before_cancel", "sends", .info),
            ("attempts_after_cancel", "attempts", .mustNotGrow),
            ("server_retries_after_cancel", "requests", .mustNotGrow),
            ("arrivals_after_cancel", "requests", .info), ("server_close_p50", "ms", .lower),
            ("resident_growth", "KiB", .lower), ("background_load", "sends", .info), ("reference_p50", "ms", .info),
            ("reference_p99", "ms", .info), ("reference_max", "ms", .info),
            // what the phase cost: its wall time, the client's and the server's CPU, connections
            ("wall_s", "s", .info), ("client_cpu_s", "s", .info), ("server_cpu_s", "s", .info),
            ("connections_opened", "connections", .info), ("connections_active", "connections", .info),
        ]
        for (statistic, unit, policy) in statistics {
            list.append(
                named(
                    "cancellation.\(cell).\(statistic)", row: ("cancellation", cell, statistic), unit, policy,
                    .cancellation))
        }
        list += histogram(
            "cancellation", raw, "ms", .cancellation, names: ["mean", "p50", "p90", "p99", "p99.9", "max"],
            prefix: "cancellation.\(raw)", policy: .info)
        // The baseline's cells report what the SDK's do but the reference, measured beside the SDK's.
        for (statistic, unit, _) in statistics where !statistic.hasPrefix("reference_") {
            list.append(
                named(
                    "cancellation.\(raw).\(statistic)", row: ("cancellation", raw, statistic), unit, .info,
                    .cancellation))
        }
        list.append(value("cancellation.live_requests_after", "requests", .mustNotGrow, .cancellation))
        for prefix in ["", "backoff_"] {
            for (statistic, unit) in [("resident_growth", "KiB"), ("heap_growth", "KiB"), ("growth_per_1k", "KiB/1k")] {
                list.append(
                    named(
                        "cancellation.soak.\(prefix)\(statistic)", row: ("cancellation", "soak", prefix + statistic),
                        unit, .lower, .cancellation))
            }
        }
        list.append(row("cancellation", "soak", "cancellations", "sends", .info, .cancellation))
        return list
    }()

    /// The rows every scenario ends with, and a sharded run's.
    static let run: [Metric] = [
        row("run", "elapsed", "value", "s", .info, .run), row("run", "time_scale", "value", "x", .info, .run),
        row("run", "wall_elapsed", "value", "s", .info, .run), row("run", "wall_speed", "value", "x", .info, .run),
        row("run", "wall_budget", "value", "s", .info, .run), row("run", "over_budget", "value", "runs", .info, .run),
        row("run", "interrupted", "value", "runs", .mustNotGrow, .run),
        row("run", "shards", "value", "processes", .info, .run), row("run", "peak_memory", "value", "MB", .info, .run),
        row("run", "peak_memory", "per_million_sends", "MB", .info, .run),
    ]

    // MARK: Building entries

    /// `probe.metric`, written as the row `probe.metric.value` (or another statistic).
    static func value(
        _ name: String, _ unit: String, _ policy: MetricPolicy, _ source: Source, statistic: String = "value"
    ) -> Metric {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        let metric = statistic == "value" ? parts[1] : String(parts[1].dropLast(statistic.count + 1))
        return Metric(
            probe: parts[0], metric: metric, statistic: statistic, name: name, unit: unit, policy: policy,
            source: source)
    }

    /// A named metric whose row is spelled differently from its name.
    static func named(
        _ name: String, row: (probe: String, metric: String, statistic: String), _ unit: String,
        _ policy: MetricPolicy, _ source: Source
    ) -> Metric {
        Metric(
            probe: row.probe, metric: row.metric, statistic: row.statistic, name: name, unit: unit, policy: policy,
            source: source)
    }

    /// A row no assertion reads.
    static func row(
        _ probe: String, _ metric: String, _ statistic: String, _ unit: String, _ policy: MetricPolicy,
        _ source: Source
    ) -> Metric {
        Metric(
            probe: probe, metric: metric, statistic: statistic, name: nil, unit: unit, policy: policy, source: source)
    }

    /// A histogram's rows (`MetricRecorder.record(histogram:…)`): its sample count (informational),
    /// mean and percentiles (`policy`); the statistics in `names` are assertable as `prefix.<statistic>`.
    static func histogram(
        _ probe: String, _ metric: String, _ unit: String, _ source: Source, names: Set<String>, prefix: String,
        policy: MetricPolicy = .lower
    ) -> [Metric] {
        [row(probe, metric, "count", "samples", .info, source)]
            + Histogram.summaryStatistics.map { statistic in
                Metric(
                    probe: probe, metric: metric, statistic: statistic,
                    name: names.contains(statistic) ? "\(prefix).\(statistic)" : nil, unit: unit, policy: policy,
                    source: source)
            }
    }
}
