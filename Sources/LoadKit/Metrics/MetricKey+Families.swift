// The families of metric keys whose last part is one of a fixed set of statistics, and the keys
// of histograms: declared with the keys (MetricKey.swift), the only other place keys are made.

/// The KS figures the jitter probe reports per attempt.
package enum JitterAttemptStatistic: String, CaseIterable, Sendable {
    case samples
    case ksD = "ks_d"
    case ksCritical = "ks_critical"
    case ksCritical001 = "ks_critical_001"
    case ksP = "ks_p"
}

/// The figures of one cancellation cell besides its latency histogram.
package enum CancellationStatistic: String, CaseIterable, Sendable {
    case abortedRatio = "aborted_ratio"
    case finishedBeforeCancel = "finished_before_cancel"
    case attemptsAfterCancel = "attempts_after_cancel"
    case serverRetriesAfterCancel = "server_retries_after_cancel"
    case arrivalsAfterCancel = "arrivals_after_cancel"
    case serverCloseP50 = "server_close_p50"
    case residentGrowth = "resident_growth"
    case backgroundLoad = "background_load"
    case referenceP50 = "reference_p50"
    case referenceP99 = "reference_p99"
    case referenceMax = "reference_max"
    case excessP90 = "excess_p90"
    case excessMax = "excess_max"
    case wallSeconds = "wall_s"
    case clientCPUSeconds = "client_cpu_s"
    case serverCPUSeconds = "server_cpu_s"
    case connectionsOpened = "connections_opened"
    case connectionsActive = "connections_active"
}

/// What the memory soak reports.
package enum SoakStatistic: String, CaseIterable, Sendable {
    case residentGrowth = "resident_growth"
    case heapGrowth = "heap_growth"
    case growthPerThousand = "growth_per_1k"
}

/// A sweep's figures per cell.
package enum CellStatistic: String, CaseIterable, Sendable {
    case successRate = "success_rate"
    case successRateLow = "success_rate_low"
    case successRateHigh = "success_rate_high"
    case latencyP50 = "latency_p50"
    case latencyP99 = "latency_p99"
    case latencyP999 = "latency_p99.9"
    case amplification
    case peakLoad = "peak_load"
    case duplicates
    case lost
    case deadWork = "dead_work"
    case metastable
    case recovery = "recovery_s"
    case sends
}

/// What the default policy costs against a baseline policy.
package enum RegretStatistic: String, CaseIterable, Sendable {
    case sendsLostPer10k = "sends_lost_per_10k"
    case extraP99 = "extra_p99"
    case extraServerLoad = "extra_server_load"
    case extraDeadWorkPer10k = "extra_dead_work_per_10k"
}

/// A histogram's rows (`MetricRecorder.record(_:as:)`): `probe.metric.count` and its mean and
/// percentiles; the statistics the catalog names are assertable as `prefix.<statistic>`.
package struct HistogramKey: Hashable, Sendable {
    var probe: String
    var metric: String
    /// The assertion names' stem.
    var prefix: String

    init(_ probe: String, _ metric: String, prefix: String) {
        self.probe = probe
        self.metric = metric
        self.prefix = prefix
    }

    /// The key of one statistic (`send.latency.p99`); the count's key is its row.
    func key(_ statistic: String) -> MetricKey {
        MetricKey(statistic == "count" ? "\(probe).\(metric).count" : "\(prefix).\(statistic)")
    }

    package static let sendLatency = HistogramKey("send", "latency", prefix: "send.latency")
    package static let attemptsPerSend = HistogramKey("send", "attempts_per_send", prefix: "attempts_per_send")
    package static let jitterOvershoot = HistogramKey("jitter", "overshoot", prefix: "jitter.overshoot")
    package static let controlLatency = HistogramKey("control", "latency", prefix: "control.latency")
    /// A cancellation cell's latency (`cancellation.<phase>.<idle|load>`).
    package static func cancellation(_ cell: String) -> HistogramKey {
        HistogramKey("cancellation", cell, prefix: "cancellation.\(cell)")
    }
}
