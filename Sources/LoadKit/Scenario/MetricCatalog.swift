import FakeFrontmail
import Frontmail

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

    /// Error codes a run can count: the API's, the client's, the fake server's own, and any code the
    /// scenario's plan answers with.
    static func errorCodes(in scenario: Scenario) -> Set<String> {
        var codes = Set(FrontmailError.Code.statusTable.keys.map(\.rawValue))
        codes.formUnion(FrontmailError.Code.clientCodes.map(\.rawValue))
        codes.formUnion(["unfinished", "request_timeout"])
        for rule in scenario.plan.rules {
            if let code = rule.action.code { codes.insert(code) }
            if let status = rule.action.status { codes.insert(ServerResponse.defaultCode(for: status)) }
        }
        return codes
    }

    /// Why a name with an open-looking tail (an error code, a cancellation cell) names nothing this
    /// scenario can measure; nil when it can.
    static func unknownPart(of name: String, in scenario: Scenario) -> String? {
        for prefix in ["send.errors.", "attempts.errors."] where name.hasPrefix(prefix) {
            let code = String(name.dropFirst(prefix.count))
            return errorCodes(in: scenario).contains(code)
                ? nil : "no error code '\(code)' (the codes are listed in docs/scenarios.md)"
        }
        if name == "timeseries.peak_load" || name == "timeseries.peak_queue_depth"
            || name == "metastability.peak_load", scenario.plan.capacity == nil
        {
            return "the plan has no capacity model to measure load against"
        }
        if name.hasPrefix("calibration.") {
            guard let reference = scenario.load.calibratedRate?.of, scenario.experiment == .load else {
                return "this scenario's load is not calibrated (write its rate as {\"fraction\": …, \"of\": …})"
            }
            let known = [
                "calibration.\(reference.metricName).throughput", "calibration.\(reference.metricName).window",
                "calibration.load.fraction", "calibration.load.rate",
            ]
            return known.contains(name) ? nil : "not one of \(known.joined(separator: ", "))"
        }
        guard name.hasPrefix("cancellation."), case .cancellation(let settings) = scenario.experiment else {
            return nil
        }
        let parts = name.dropFirst("cancellation.".count).split(separator: ".", omittingEmptySubsequences: false)
            .map(String.init)
        switch parts.first {
        case "live_requests_after" where parts.count == 1:
            return nil
        case "soak" where parts.count == 2:
            if !MetricCatalog.soakStatistics.contains(parts[1]) {
                return "the soak reports \(MetricCatalog.soakStatistics.sorted().joined(separator: ", "))"
            }
            return settings.soak > 0 ? nil : "this scenario runs no soak (cancellation.soak is 0)"
        default:
            break
        }
        var cell = parts
        var phases = settings.phases.map(\.rawValue)
        if cell.first == "raw_urlsession" {
            guard settings.baseline, scenario.transport == .socket else {
                return "the raw URLSession baseline runs only over sockets with baseline true"
            }
            cell.removeFirst()
            phases = phases.filter { $0 == CancellationPhase.inFlight.rawValue }
            if cell.last?.hasPrefix("reference_") == true {
                return "the reference is measured beside the SDK's cells, not the baseline's"
            }
        }
        // <phase>.<idle|load>.<statistic>; the statistic p99.9 has a dot of its own.
        guard cell.count >= 3, let phase = cell.first, let load = cell.dropFirst().first else {
            return "write cancellation.<phase>.<idle|load>.<statistic>"
        }
        let statistic = cell.dropFirst(2).joined(separator: ".")
        guard phases.contains(phase) else {
            return "phase '\(phase)' is not measured (measured: \(phases.joined(separator: ", ")))"
        }
        guard load == "idle" || (load == "load" && settings.backgroundLoad > 0) else {
            return settings.backgroundLoad > 0 || load != "load"
                ? "write idle or load after the phase, not '\(load)'" : "backgroundLoad is 0: there is no load cell"
        }
        guard cancellationStatistics.contains(statistic) else {
            return "no statistic '\(statistic)' (one of \(cancellationStatistics.sorted().joined(separator: ", ")))"
        }
        if statistic == "server_retries_after_cancel", CancellationPhase(rawValue: phase)?.ledgerJudgesRetries != true {
            let judged = CancellationPhase.allCases.filter(\.ledgerJudgesRetries).map(\.rawValue)
            return "server_retries_after_cancel is measured for \(judged.joined(separator: ", ")) only"
        }
        return nil
    }
}
