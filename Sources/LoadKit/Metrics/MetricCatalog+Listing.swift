/// The catalog as a user reads it (`frontmail-bench list --metrics`): every name an assertion can
/// use, with its unit, and the summary row it reads (whose polarity and strictness the regression
/// gate's catalog, `MetricPolicies` in Report/, declares). Names with a part in angle brackets stand for a set
/// (`send.errors.<code>`: the codes of docs/scenarios.md). A test runs a scenario and the
/// cancellation experiment and checks that every metric they produce is listed here with the unit
/// its row was written with.
extension MetricCatalog {
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var unit: String
    }

    static let histogram = ["mean", "p50", "p90", "p99", "p99.9", "max"]

    /// Every assertion name, in the order of docs/scenarios.md.
    public static let entries: [Entry] = {
        var list: [(String, String)] = [
            ("send.sends", "sends"), ("send.ok", "sends"), ("send.failed", "sends"), ("send.success_rate", "ratio"),
            ("send.dropped", "sends"), ("send.throughput", "sends/s"), ("send.errors.<code>", "sends"),
            ("attempts.errors.<code>", "attempts"),
        ]
        list += ["p50", "p90", "p99", "p99.9", "max"].map { ("send.latency.\($0)", "policy_ms") }
        list += [
            ("attempts_per_send.mean", "attempts"), ("attempts_per_send.p99", "attempts"),
            ("attempts_per_send.max", "attempts"), ("attempts.unreported", "requests"),
            ("attempts.unseen", "attempts"), ("load.server_requests", "requests"),
            ("load.amplification", "requests/send"),
            ("idempotency.sends", "sends"), ("idempotency.effects", "messages"), ("idempotency.duplicates", "sends"),
            ("idempotency.lost", "sends"), ("idempotency.unexpected", "messages"),
            ("idempotency.fail_with_effect", "sends"), ("idempotency.info_with_effect", "sends"),
            ("idempotency.message_id_mismatches", "sends"), ("idempotency.key_changes", "sends"),
            ("idempotency.body_changes", "sends"), ("idempotency.key_collisions", "keys"),
            ("idempotency.defects", "requests"),
            ("jitter.samples", "delays"), ("jitter.ks_d", "D"), ("jitter.ks_critical", "D"),
            ("jitter.ks_critical_01", "D"), ("jitter.ks_critical_001", "D"), ("jitter.ks_p", "p"),
            ("jitter.mean", "x cap"), ("jitter.variance", "x cap^2"),
            ("jitter.samples.attempt<N>", "delays"), ("jitter.ks_d.attempt<N>", "D"),
            ("jitter.ks_critical.attempt<N>", "D"), ("jitter.ks_critical_001.attempt<N>", "D"),
            ("jitter.ks_p.attempt<N>", "p"),
            ("jitter.retry_after_waits", "waits"), ("jitter.retry_after_mismatches", "waits"),
            ("jitter.over_limit_retried", "sends"), ("jitter.early_retries", "retries"),
            ("jitter.cap_mismatches", "retries"), ("jitter.realized_samples", "retries"),
            ("jitter.realized_dependence", "z"),
        ]
        list += ["p50", "p99", "max"].map { ("jitter.overshoot.\($0)", "ms") }
        list += [
            ("calibration.<reference>.throughput", "sends/s"), ("calibration.<reference>.window", "s"),
            ("calibration.load.fraction", "ratio"), ("calibration.load.rate", "sends/s"),
        ]
        list += [
            ("timeseries.seconds", "s"), ("timeseries.peak_arrivals", "requests"), ("timeseries.peak_load", "ratio"),
            ("timeseries.peak_queue_depth", "requests"), ("timeseries.dead_work", "requests"),
            ("timeseries.dropped_unprocessed", "requests"),
            ("metastability.verdict", "runs"), ("metastability.recovery_s", "s"),
            ("metastability.goodput_before", "sends/s"), ("metastability.goodput_after", "sends/s"),
            ("metastability.peak_load", "ratio"), ("metastability.dead_work", "requests"),
            ("metastability.trigger_s", "s"), ("metastability.restore_s", "s"),
        ]
        let cell = "cancellation.<phase>.<idle|load>"
        list += histogram.map { ("\(cell).\($0)", "ms") }
        list += [
            ("\(cell).aborted_ratio", "ratio"), ("\(cell).finished_before_cancel", "sends"),
            ("\(cell).attempts_after_cancel", "attempts"), ("\(cell).server_retries_after_cancel", "requests"),
            ("\(cell).arrivals_after_cancel", "requests"),
            ("\(cell).server_close_p50", "ms"), ("\(cell).resident_growth", "KiB"),
            ("\(cell).background_load", "sends"), ("\(cell).reference_p50", "ms"),
            ("\(cell).reference_p99", "ms"), ("\(cell).reference_max", "ms"),
        ]
        list += histogram.map { ("cancellation.raw_urlsession.inFlight.<idle|load>.\($0)", "ms") }
        list += [
            ("cancellation.raw_urlsession.inFlight.<idle|load>.aborted_ratio", "ratio"),
            ("cancellation.live_requests_after", "requests"),
        ]
        for prefix in ["", "backoff_"] {
            list += [
                ("cancellation.soak.\(prefix)resident_growth", "KiB"),
                ("cancellation.soak.\(prefix)heap_growth", "KiB"),
                ("cancellation.soak.\(prefix)growth_per_1k", "KiB/1k"),
            ]
        }
        return list.map { Entry(name: $0.0, unit: $0.1) }
    }()

    /// The summary row (`probe`, `metric`, `statistic`) an assertion name reads.
    public static func row(of name: String) -> (probe: String, metric: String, statistic: String) {
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // p99.9 is one statistic.
        if parts.count >= 3, parts[parts.count - 1] == "9", parts[parts.count - 2] == "p99" {
            parts.removeLast()
            parts[parts.count - 1] = "p99.9"
        }
        if parts.count == 2, parts[0] == "attempts_per_send" { return ("send", "attempts_per_send", parts[1]) }
        guard parts.count >= 2 else { return (name, "", "value") }
        if parts.count == 2 { return (parts[0], parts[1], "value") }
        if parts[0] == "cancellation" {
            return ("cancellation", parts[1..<(parts.count - 1)].joined(separator: "."), parts[parts.count - 1])
        }
        return (parts[0], parts[1], parts[2...].joined(separator: "."))
    }

    /// The catalog entry a concrete name falls under (`send.errors.timeout` → `send.errors.<code>`).
    static func entry(for name: String) -> Entry? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return entries.first { entry in
            let pattern = entry.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            // A placeholder stands for one part; the cancellation cell's phase and load are one each.
            guard pattern.count == parts.count else { return false }
            return zip(pattern, parts).allSatisfy { wanted, actual in
                if wanted.hasPrefix("<") { return true }
                if wanted.hasSuffix("<N>") {
                    let stem = wanted.dropLast(3)
                    return actual.hasPrefix(stem) && Int(actual.dropFirst(stem.count)) != nil
                }
                return wanted == actual
            }
        }
    }
}
