/// What a producer records a metric by and what a reader reads it by: its assertion name, or its
/// summary row (`probe.metric.statistic`) for a row no assertion reads. Every key is declared here
/// (its statistics' families in `MetricKey+Families.swift`), once, and nowhere else can one be
/// made: the catalog gives each its row, unit and policy (`MetricCatalog`), the probes record by
/// it (`MetricRecorder`), and the readers (a sweep's cell, the control arm, a run read back) read
/// by it (`MetricValues`). A key with a part in angle
/// brackets stands for a set (`send.errors.<code>`); its function fills the part in.
public struct MetricKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The dotted name.
    public let text: String

    /// Only `Metrics/MetricKey*.swift` make keys (`scripts/check-layers.py` refuses one made anywhere
    /// else in the sources); tests make undeclared ones to see them refused.
    init(_ text: String) { self.text = text }

    public var description: String { text }

    /// Whether the key stands for a set (it has a placeholder).
    var isPattern: Bool { text.contains("<") }

    public static func < (lhs: MetricKey, rhs: MetricKey) -> Bool { lhs.text < rhs.text }
}

// MARK: The outcome probe

extension MetricKey {
    package static let sendSends = MetricKey("send.sends")
    package static let sendOk = MetricKey("send.ok")
    package static let sendFailed = MetricKey("send.failed")
    package static let sendSuccessRate = MetricKey("send.success_rate")
    package static let sendDropped = MetricKey("send.dropped")
    package static let sendThroughput = MetricKey("send.throughput")
    package static func sendErrors(_ code: String = "<code>") -> MetricKey { MetricKey("send.errors.\(code)") }
    package static func attemptErrors(_ code: String = "<code>") -> MetricKey { MetricKey("attempts.errors.\(code)") }
    package static let sendErrorsChecked = MetricKey("send.errors_checked")
    package static let sendErrorMismatches = MetricKey("send.error_mismatches")
    package static let attemptsUnreported = MetricKey("attempts.unreported")
    package static let attemptsUnseen = MetricKey("attempts.unseen")
    package static let attemptsOverLimit = MetricKey("attempts.over_limit")
    package static let attemptsAfterFinalAnswer = MetricKey("attempts.after_final_answer")
    package static let attemptsGaveUpEarly = MetricKey("attempts.gave_up_early")
    package static let survivesHostileSends = MetricKey("survives.hostile_sends")
    package static let survivesMisjudged = MetricKey("survives.misjudged")
    package static let loadServerRequests = MetricKey("load.server_requests")
    package static let loadAmplification = MetricKey("load.amplification")
    package static let retryBudgetRefused = MetricKey("retry.budget_refused")
    package static let retryExactBudgetDecisions = MetricKey("retry.exact_budget_decisions")
    package static let retryExactBudgetRefusals = MetricKey("retry.exact_budget_refusals")
    package static let retryExactBudgetViolations = MetricKey("retry.exact_budget_violations")
}

// MARK: The idempotency probe

extension MetricKey {
    package static let idempotencySends = MetricKey("idempotency.sends")
    package static let idempotencyEffects = MetricKey("idempotency.effects")
    package static let idempotencyDuplicates = MetricKey("idempotency.duplicates")
    package static let idempotencyLost = MetricKey("idempotency.lost")
    package static let idempotencyUnexpected = MetricKey("idempotency.unexpected")
    package static let idempotencyFailWithEffect = MetricKey("idempotency.fail_with_effect")
    package static let idempotencyInfoWithEffect = MetricKey("idempotency.info_with_effect")
    package static let idempotencyMessageIDMismatches = MetricKey("idempotency.message_id_mismatches")
    package static let idempotencyKeyChanges = MetricKey("idempotency.key_changes")
    package static let idempotencyKeylessSends = MetricKey("idempotency.keyless_sends")
    package static let idempotencyBodyChanges = MetricKey("idempotency.body_changes")
    package static let idempotencyKeyCollisions = MetricKey("idempotency.key_collisions")
    package static let idempotencyDefects = MetricKey("idempotency.defects")
    package static let idempotencyKeysNotV4 = MetricKey("idempotency.keys_not_v4")
    package static let idempotencyKeyBitBias = MetricKey("idempotency.key_bit_bias")
    /// The row of sends per verdict (`ok`, `fail`, `info`, `dropped`).
    package static func idempotencyOutcome(_ verdict: String = "<verdict>") -> MetricKey {
        MetricKey("idempotency.outcome.\(verdict)")
    }
    package static let payloadChecked = MetricKey("payload.checked")
    package static let payloadMismatches = MetricKey("payload.mismatches")
}

// MARK: The jitter probe

extension MetricKey {
    package static let jitterSamples = MetricKey("jitter.samples")
    package static let jitterKSD = MetricKey("jitter.ks_d")
    package static let jitterKSCritical = MetricKey("jitter.ks_critical")
    package static let jitterKSCritical01 = MetricKey("jitter.ks_critical_01")
    package static let jitterKSCritical001 = MetricKey("jitter.ks_critical_001")
    package static let jitterKSP = MetricKey("jitter.ks_p")
    package static let jitterMean = MetricKey("jitter.mean")
    package static let jitterVariance = MetricKey("jitter.variance")
    package static let jitterMeanExpected = MetricKey("jitter.mean.expected")
    package static let jitterVarianceExpected = MetricKey("jitter.variance.expected")
    /// A per-attempt KS figure: `jitter.<statistic>.attempt<N>`.
    package static func jitterPerAttempt(_ statistic: JitterAttemptStatistic, attempt: Int?) -> MetricKey {
        MetricKey("jitter.\(statistic.rawValue).attempt\(attempt.map(String.init) ?? "<N>")")
    }
    package static let jitterRetryAfterWaits = MetricKey("jitter.retry_after_waits")
    package static let jitterRetryAfterMismatches = MetricKey("jitter.retry_after_mismatches")
    package static let jitterOverLimitRetried = MetricKey("jitter.over_limit_retried")
    package static let jitterEarlyRetries = MetricKey("jitter.early_retries")
    package static let jitterCapMismatches = MetricKey("jitter.cap_mismatches")
    package static let jitterRealizedSamples = MetricKey("jitter.realized_samples")
    package static let jitterRealizedDependence = MetricKey("jitter.realized_dependence")
    package static let jitterPairSamples = MetricKey("jitter.pair_samples")
    package static let jitterPairDependence = MetricKey("jitter.pair_dependence")
    package static let jitterExactRetryAfterWaits = MetricKey("jitter.exact_retry_after_waits")
    package static let jitterExactRetryAfterGapErrors = MetricKey("jitter.exact_retry_after_gap_errors")
    package static let jitterExactRealizedSamples = MetricKey("jitter.exact_realized_samples")
    package static let jitterExactOverCap = MetricKey("jitter.exact_over_cap")
    package static let jitterExactRealizedKSD = MetricKey("jitter.exact_realized_ks_d")
    package static let jitterExactRealizedKSCritical001 = MetricKey("jitter.exact_realized_ks_critical_001")
    package static let attemptsExactTimeouts = MetricKey("attempts.exact_timeouts")
    package static let attemptsExactTimeoutMismatches = MetricKey("attempts.exact_timeout_mismatches")
}

// MARK: Calibration, the control arm, status reads

extension MetricKey {
    package static func calibrationThroughput(_ reference: String = "<reference>") -> MetricKey {
        MetricKey("calibration.\(reference).throughput")
    }
    package static func calibrationWindow(_ reference: String = "<reference>") -> MetricKey {
        MetricKey("calibration.\(reference).window")
    }
    package static let calibrationLoadFraction = MetricKey("calibration.load.fraction")
    package static let calibrationLoadRate = MetricKey("calibration.load.rate")
    package static let calibrationLoadProcesses = MetricKey("calibration.load.processes")

    package static let controlSends = MetricKey("control.sends")
    package static let controlOk = MetricKey("control.ok")
    package static let controlFailed = MetricKey("control.failed")
    package static let controlDropped = MetricKey("control.dropped")
    package static let controlDropRate = MetricKey("control.drop_rate")
    package static let controlThroughput = MetricKey("control.throughput")
    package static let controlExcessDropRate = MetricKey("control.excess_drop_rate")

    package static let statusReads = MetricKey("status.reads")
    package static let statusOk = MetricKey("status.ok")
    package static let statusSuccessRate = MetricKey("status.success_rate")
    package static let statusMismatched = MetricKey("status.mismatched")
    package static func statusErrors(_ code: String = "<code>") -> MetricKey { MetricKey("status.errors.\(code)") }
    package static func statusAttemptErrors(_ code: String = "<code>") -> MetricKey {
        MetricKey("status.attempt_errors.\(code)")
    }
    package static let statusAttempts = MetricKey("status.attempts")
    package static let statusUnreported = MetricKey("status.unreported")
    package static let statusDefects = MetricKey("status.defects")
    package static let statusAttemptsPerReadMax = MetricKey("status.attempts_per_read.max")
    package static let statusUnknownReads = MetricKey("status.unknown_reads")
    package static let statusUnknownNotFound = MetricKey("status.unknown_not_found")
    package static let statusUnknownRetried = MetricKey("status.unknown_retried")
    package static let statusUnknownMisreported = MetricKey("status.unknown_misreported")
    package static let statusCancelled = MetricKey("status.cancelled")
    package static let statusCancelledNotAborted = MetricKey("status.cancelled_not_aborted")
    package static let statusAnsweredBeforeCancel = MetricKey("status.answered_before_cancel")
    package static let statusAttemptsAfterCancel = MetricKey("status.attempts_after_cancel")
    package static let statusCancelLateMax = MetricKey("status.cancel_late.max")
}

// MARK: The time series and the metastability verdict

extension MetricKey {
    package static let timeseriesSeconds = MetricKey("timeseries.seconds")
    package static let timeseriesPeakArrivals = MetricKey("timeseries.peak_arrivals")
    package static let timeseriesPeakLoad = MetricKey("timeseries.peak_load")
    package static let timeseriesPeakQueueDepth = MetricKey("timeseries.peak_queue_depth")
    package static let timeseriesDeadWork = MetricKey("timeseries.dead_work")
    package static let timeseriesDeadWorkAfterEnd = MetricKey("timeseries.dead_work_after_end")
    package static let timeseriesDrain = MetricKey("timeseries.drain_s")
    package static let timeseriesDrainLimited = MetricKey("timeseries.drain_limited")
    package static let timeseriesDroppedUnprocessed = MetricKey("timeseries.dropped_unprocessed")

    package static let metastabilityVerdict = MetricKey("metastability.verdict")
    package static let metastabilityRecovery = MetricKey("metastability.recovery_s")
    package static let metastabilityGoodputBefore = MetricKey("metastability.goodput_before")
    package static let metastabilityGoodputAfter = MetricKey("metastability.goodput_after")
    package static let metastabilityPeakLoad = MetricKey("metastability.peak_load")
    package static let metastabilityDeadWork = MetricKey("metastability.dead_work")
    package static let metastabilityTrigger = MetricKey("metastability.trigger_s")
    package static let metastabilityRestore = MetricKey("metastability.restore_s")
}

// MARK: The cancellation experiment

extension MetricKey {
    /// A cell's figure: `cancellation.<phase>.<idle|load>.<statistic>` (the raw URLSession
    /// baseline's cells are `raw_urlsession.inFlight.<idle|load>`).
    package static func cancellation(_ cell: String, _ statistic: CancellationStatistic) -> MetricKey {
        MetricKey("cancellation.\(cell).\(statistic.rawValue)")
    }
    package static let cancellationLiveRequestsAfter = MetricKey("cancellation.live_requests_after")
    /// What the memory soak measured, in flight or in a backoff.
    package static func cancellationSoak(_ statistic: SoakStatistic, inBackoff: Bool) -> MetricKey {
        MetricKey("cancellation.soak.\(inBackoff ? "backoff_" : "")\(statistic.rawValue)")
    }
    package static let cancellationSoakCancellations = MetricKey("cancellation.soak.cancellations")
}

// MARK: The run's own rows, a sweep's rows

extension MetricKey {
    package static let runElapsed = MetricKey("run.elapsed.value")
    package static let runTimeScale = MetricKey("run.time_scale.value")
    package static let runWallElapsed = MetricKey("run.wall_elapsed.value")
    package static let runWallSpeed = MetricKey("run.wall_speed.value")
    package static let runWallBudget = MetricKey("run.wall_budget.value")
    package static let runOverBudget = MetricKey("run.over_budget.value")
    package static let runInterrupted = MetricKey("run.interrupted.value")
    package static let runShards = MetricKey("run.shards.value")
    package static let runPeakMemory = MetricKey("run.peak_memory.value")
    package static let runPeakMemoryPerMillionSends = MetricKey("run.peak_memory.per_million_sends")
    /// The signal that ended a scenario's process (its `CRASH` verdict).
    package static let runCrashSignal = MetricKey("run.crash.signal")

    /// A sweep's figure of one policy in one environment: the row `cell.<policy>.<statistic>`,
    /// recorded with the policy's label (`MetricRecorder.record(_:label:_:)`; a label may hold dots).
    package static func cell(_ statistic: CellStatistic) -> MetricKey {
        MetricKey("cell.<policy>.\(statistic.rawValue)")
    }
    /// The analytic checks and the correctness counts of a sweep.
    package static let sanityBrownoutChecks = MetricKey("sanity.brownout.checks")
    package static let sanityBrownoutDisagreements = MetricKey("sanity.brownout.disagreements")
    package static let sanityOutageChecks = MetricKey("sanity.outage.checks")
    package static let sanityOutageDisagreements = MetricKey("sanity.outage.disagreements")
    package static let sanityDuplicates = MetricKey("sanity.correctness.duplicates")
    package static let sanityLost = MetricKey("sanity.correctness.lost")
    package static let ruleSingleWinner = MetricKey("rule.recommendation.single_winner")
    package static let ruleTied = MetricKey("rule.recommendation.tied")
    package static let ruleBootstrapShare = MetricKey("rule.stability.bootstrap_share")
    package static let ruleLeaveOneOutChanges = MetricKey("rule.stability.leave_one_out_changes")
    /// What the default policy costs against a baseline: `regret_vs_<baseline>.<policy>.<statistic>`,
    /// recorded with the default policy's label.
    package static func regret(_ statistic: RegretStatistic, against baseline: String) -> MetricKey {
        MetricKey("regret_vs_\(baseline).<policy>.\(statistic.rawValue)")
    }
    package static let tuneSendsPerWallSecond = MetricKey("tune.sweep.sends_per_wall_s")
}
