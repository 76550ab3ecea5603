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
        /// A policy sweep (`cell.*`, `sanity.*`, `rule.*`, `regret_vs_*`, `tune.*`); rows only.
        case tune
    }

    /// The catalog.
    public static let all: [Metric] =
        outcome + idempotency + jitter + calibration + control + status + timeseries + metastability
        + cancellation + run + tune

    // MARK: The entries

    static let outcome: [Metric] = {
        let source = Source.probe(.outcome)
        var list = [
            value(.sendSends, "sends", .info, source), value(.sendOk, "sends", .info, source),
            value(.sendFailed, "sends", .info, source), value(.sendSuccessRate, "ratio", .higher, source),
            value(.sendDropped, "sends", .lower, source), value(.sendThroughput, "sends/s", .higher, source),
            value(.sendErrors(), "sends", .info, source, statistic: "<code>"),
            value(.attemptErrors(), "attempts", .info, source, statistic: "<code>"),
        ]
        list += histogram(.sendLatency, "policy_ms", source, names: ["p50", "p90", "p99", "p99.9", "max"])
        list += histogram(.attemptsPerSend, "attempts", source, names: ["mean", "p99", "max"])
        // The SDK's count of its attempts against the server's: an invented attempt is a defect; a
        // request the SDK did not report may also be the transport's own retry (libcurl resends a
        // request on a reused connection that died before answering), so it is judged per scenario.
        list += [
            value(.sendErrorsChecked, "sends", .info, source),
            value(.sendErrorMismatches, "sends", .mustNotGrow, source),
            value(.attemptsUnreported, "requests", .lower, source),
            value(.attemptsUnseen, "attempts", .mustNotGrow, source),
            // From the ledger against the file: more requests than the policy allows (over sockets
            // libcurl's own resend can add one), a request after an answer that ends a send, a
            // retryable failure with attempts left that was not retried.
            value(.attemptsOverLimit, "sends", .lower, source),
            value(.attemptsAfterFinalAnswer, "sends", .mustNotGrow, source),
            value(.attemptsGaveUpEarly, "sends", .mustNotGrow, source),
            // Sends that got an answer outside the contract, and those of them a verdict above failed.
            value(.survivesHostileSends, "sends", .info, source),
            value(.survivesMisjudged, "sends", .mustNotGrow, source),
            value(.loadServerRequests, "requests", .info, source),
            value(.loadAmplification, "requests/send", .lower, source),
            value(.retryBudgetRefused, "retries", .info, source),
            // The bucket replayed over the ledger (virtual time, a client with a budget: BudgetReplay).
            value(.retryExactBudgetDecisions, "retries", .info, source).virtualTimeOnly(),
            value(.retryExactBudgetRefusals, "retries", .info, source).virtualTimeOnly(),
            value(.retryExactBudgetViolations, "retries", .mustNotGrow, source).virtualTimeOnly(),
        ]
        return list
    }()

    /// Every defect count is strict.
    static let idempotency: [Metric] = {
        let source = Source.probe(.idempotency)
        var list = [
            value(.idempotencySends, "sends", .info, source), value(.idempotencyEffects, "messages", .info, source),
        ]
        list += [
            value(.idempotencyDuplicates, "sends", .mustNotGrow, source),
            value(.idempotencyLost, "sends", .mustNotGrow, source),
            value(.idempotencyUnexpected, "messages", .mustNotGrow, source),
            value(.idempotencyFailWithEffect, "sends", .mustNotGrow, source),
            value(.idempotencyInfoWithEffect, "sends", .info, source),
            value(.idempotencyMessageIDMismatches, "sends", .mustNotGrow, source),
            value(.idempotencyKeyChanges, "sends", .mustNotGrow, source),
            value(.idempotencyKeylessSends, "sends", .mustNotGrow, source),
            value(.idempotencyBodyChanges, "sends", .mustNotGrow, source),
            value(.idempotencyKeyCollisions, "keys", .mustNotGrow, source),
            value(.idempotencyDefects, "requests", .mustNotGrow, source),
        ]
        // What SDK-made keys look like (an explicit key pool's are the harness's).
        list.append(value(.idempotencyKeysNotV4, "keys", .mustNotGrow, source))
        list.append(value(.idempotencyKeyBitBias, "z", .info, source))
        list.append(row(.idempotencyOutcome(), "sends", .info, source))
        // The `fidelity` payload: every received body against the one the driver intended.
        list.append(value(.payloadChecked, "requests", .info, source))
        list.append(value(.payloadMismatches, "requests", .mustNotGrow, source))
        return list
    }()

    /// The client's defects are strict; statistics of a random sample are informational.
    static let jitter: [Metric] = {
        let source = Source.probe(.jitter)
        var list: [Metric] = [
            value(.jitterSamples, "delays", .info, source), value(.jitterKSD, "D", .info, source),
            value(.jitterKSCritical, "D", .info, source), value(.jitterKSCritical01, "D", .info, source),
            value(.jitterKSCritical001, "D", .info, source), value(.jitterKSP, "p", .info, source),
            value(.jitterMean, "x cap", .info, source), value(.jitterVariance, "x cap^2", .info, source),
            row(.jitterMeanExpected, "x cap", .info, source), row(.jitterVarianceExpected, "x cap^2", .info, source),
        ]
        for statistic in JitterAttemptStatistic.allCases {
            let unit = statistic == .samples ? "delays" : statistic == .ksP ? "p" : "D"
            let key = MetricKey.jitterPerAttempt(statistic, attempt: nil)
            list.append(named(key, row: ("jitter", statistic.rawValue, "attempt<N>"), unit, .info, source))
        }
        list += [
            value(.jitterRetryAfterWaits, "waits", .info, source),
            value(.jitterRetryAfterMismatches, "waits", .mustNotGrow, source),
            value(.jitterOverLimitRetried, "sends", .mustNotGrow, source),
            value(.jitterEarlyRetries, "retries", .mustNotGrow, source),
            value(.jitterCapMismatches, "retries", .mustNotGrow, source),
            value(.jitterRealizedSamples, "retries", .info, source),
            value(.jitterRealizedDependence, "z", .info, source),
            value(.jitterPairSamples, "pairs", .info, source),
            value(.jitterPairDependence, "z", .info, source),
            // Virtual time only: exact, from the server's ledger alone (JitterProbe+Exact).
            value(.jitterExactRetryAfterWaits, "waits", .info, source).virtualTimeOnly(),
            value(.jitterExactRetryAfterGapErrors, "waits", .mustNotGrow, source).virtualTimeOnly(),
            value(.jitterExactRealizedSamples, "retries", .info, source).virtualTimeOnly(),
            value(.jitterExactOverCap, "retries", .mustNotGrow, source).virtualTimeOnly(),
            value(.jitterExactRealizedKSD, "D", .info, source).virtualTimeOnly(),
            value(.jitterExactRealizedKSCritical001, "D", .info, source).virtualTimeOnly(),
            value(.attemptsExactTimeouts, "attempts", .info, source).virtualTimeOnly(),
            value(.attemptsExactTimeoutMismatches, "attempts", .mustNotGrow, source).virtualTimeOnly(),
        ]
        list += histogram(.jitterOvershoot, "ms", source, names: ["p50", "p99", "max"])
        return list
    }()

    /// What a calibrated load was a fraction of.
    static let calibration: [Metric] = [
        value(.calibrationThroughput(), "sends/s", .info, .calibration, statistic: "throughput"),
        value(.calibrationWindow(), "s", .info, .calibration, statistic: "window"),
        value(.calibrationLoadFraction, "ratio", .info, .calibration, statistic: "fraction"),
        value(.calibrationLoadRate, "sends/s", .info, .calibration, statistic: "rate"),
        row(.calibrationLoadProcesses, "processes", .info, .calibration),
    ]

    /// Plain URLSession beside the SDK's load, and what the SDK dropped beyond it.
    static let control: [Metric] =
        [
            value(.controlSends, "requests", .info, .control), value(.controlOk, "requests", .info, .control),
            value(.controlFailed, "requests", .info, .control),
            value(.controlDropped, "requests", .info, .control),
            value(.controlDropRate, "ratio", .info, .control),
            value(.controlThroughput, "requests/s", .info, .control),
            value(.controlExcessDropRate, "ratio", .lower, .control),
        ]
        + histogram(.controlLatency, "ms", .control, names: ["p50", "p99", "max"], policy: .info)

    /// The status reads after the sends: success, 404s not retried, cancellation (StatusProbe).
    static let status: [Metric] = [
        value(.statusReads, "reads", .info, .status), value(.statusOk, "reads", .info, .status),
        value(.statusSuccessRate, "ratio", .higher, .status),
        value(.statusMismatched, "reads", .mustNotGrow, .status),
        value(.statusErrors(), "reads", .info, .status, statistic: "<code>"),
        value(.statusAttemptErrors(), "attempts", .info, .status, statistic: "<code>"),
        value(.statusAttempts, "requests", .info, .status),
        value(.statusUnreported, "requests", .mustNotGrow, .status),
        value(.statusDefects, "requests", .mustNotGrow, .status),
        value(.statusAttemptsPerReadMax, "requests", .lower, .status, statistic: "max"),
        value(.statusUnknownReads, "reads", .info, .status),
        value(.statusUnknownNotFound, "reads", .info, .status),
        value(.statusUnknownRetried, "reads", .mustNotGrow, .status),
        value(.statusUnknownMisreported, "reads", .mustNotGrow, .status),
        value(.statusCancelled, "reads", .info, .status),
        value(.statusCancelledNotAborted, "reads", .mustNotGrow, .status),
        value(.statusAnsweredBeforeCancel, "reads", .info, .status),
        value(.statusAttemptsAfterCancel, "attempts", .mustNotGrow, .status),
        value(.statusCancelLateMax, "policy_ms", .lower, .status, statistic: "max"),
    ]

    static let timeseries: [Metric] = [
        value(.timeseriesSeconds, "s", .info, .timeseries),
        value(.timeseriesPeakArrivals, "requests", .info, .timeseries),
        value(.timeseriesPeakLoad, "ratio", .lower, .timeseries),
        value(.timeseriesPeakQueueDepth, "requests", .lower, .timeseries),
        value(.timeseriesDeadWork, "requests", .lower, .timeseries),
        value(.timeseriesDeadWorkAfterEnd, "requests", .lower, .timeseries),
        value(.timeseriesDrain, "s", .info, .timeseries),
        value(.timeseriesDrainLimited, "runs", .info, .timeseries),
        value(.timeseriesDroppedUnprocessed, "requests", .info, .timeseries),
    ]

    /// A verdict either way is what a scenario asserts (a retry storm must stay metastable).
    static let metastability: [Metric] = [
        value(.metastabilityVerdict, "runs", .info, .metastability),
        value(.metastabilityRecovery, "s", .lower, .metastability),
        value(.metastabilityGoodputBefore, "sends/s", .info, .metastability),
        value(.metastabilityGoodputAfter, "sends/s", .higher, .metastability),
        value(.metastabilityPeakLoad, "ratio", .lower, .metastability),
        value(.metastabilityDeadWork, "requests", .lower, .metastability),
        value(.metastabilityTrigger, "s", .info, .metastability),
        value(.metastabilityRestore, "s", .info, .metastability),
    ]

    // MARK: Building entries

    /// `probe.metric`, written as the row `probe.metric.value` (or another statistic, the key's
    /// last part).
    static func value(
        _ key: MetricKey, _ unit: String, _ policy: MetricPolicy, _ source: Source, statistic: String = "value"
    ) -> Metric {
        let parts = key.text.split(separator: ".", maxSplits: 1).map(String.init)
        let metric = statistic == "value" ? parts[1] : String(parts[1].dropLast(statistic.count + 1))
        return Metric(
            probe: parts[0], metric: metric, statistic: statistic, name: key.text, unit: unit, policy: policy,
            source: source)
    }

    /// A named metric whose row is spelled differently from its name.
    static func named(
        _ key: MetricKey, row: (probe: String, metric: String, statistic: String), _ unit: String,
        _ policy: MetricPolicy, _ source: Source
    ) -> Metric {
        Metric(
            probe: row.probe, metric: row.metric, statistic: row.statistic, name: key.text, unit: unit,
            policy: policy, source: source)
    }

    /// A row no assertion reads: its key is the row, `probe.metric.statistic` (the metric a whole
    /// part, which may hold dots, when it is a placeholder: `cell.<policy>.success_rate`).
    static func row(_ key: MetricKey, _ unit: String, _ policy: MetricPolicy, _ source: Source) -> Metric {
        let parts = key.text.split(separator: ".").map(String.init)
        precondition(parts.count >= 3, "a row's key is probe.metric.statistic: \(key)")
        return Metric(
            probe: parts[0], metric: parts[1], statistic: parts[2...].joined(separator: "."), name: nil, unit: unit,
            policy: policy, source: source)
    }

    /// A histogram's rows (`MetricRecorder.record(_:as:divisor:)`): its sample count
    /// (informational), mean and percentiles (`policy`); the statistics in `names` are assertable
    /// as `prefix.<statistic>`.
    static func histogram(
        _ key: HistogramKey, _ unit: String, _ source: Source, names: Set<String>, policy: MetricPolicy = .lower
    ) -> [Metric] {
        [
            Metric(
                probe: key.probe, metric: key.metric, statistic: "count", name: nil, unit: "samples", policy: .info,
                source: source)
        ]
            + Histogram.summaryStatistics.map { statistic in
                Metric(
                    probe: key.probe, metric: key.metric, statistic: statistic,
                    name: names.contains(statistic) ? key.key(statistic).text : nil, unit: unit, policy: policy,
                    source: source)
            }
    }
}
