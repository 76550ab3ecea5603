import FakeFrontmail
import Foundation
import Frontmail

/// Backoff jitter, judged against the scenario's policy and the server's ledger, never against what
/// the SDK says its policy is: every jittered delay is normalised by the cap the scenario's policy
/// gives that retry (computed here) and must be U(0,1) (KS test, pooled and per attempt); a cap the
/// SDK reports differently is a defect; the wait the server saw (the gap between the end of attempt n
/// and the arrival of attempt n+1) must follow the reported delay, not something else; Retry-After
/// waits must equal the header; over-limit Retry-After must not be retried; the realized gap minus
/// the reported delay is reported as overshoot.
struct JitterProbe {
    struct Sample {
        var sendID: Int
        var afterAttempt: Int
        var cause: String
        var delay: Double
        var cap: Double
        var normalized: Double
        var serverRetryAfter: Double
        var realizedGap: Double
        /// The cap the scenario's policy gives this retry (real seconds; NaN for a Retry-After wait).
        var expectedCap = Double.nan
    }

    var samples: [Sample] = []
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    var normalized: [Double] = []

    /// Tolerance when comparing a Retry-After wait with the header, in seconds (real time).
    static let retryAfterTolerance = 0.05

    /// The backoff cap after failed attempt `attempt` (0-based) under the scenario's policy, in real
    /// seconds: `min(maxDelay, baseDelay × 2^attempt)` × timeScale. Computed from the scenario file,
    /// independently of the SDK's `RetryPolicy`, so an SDK with a wrong formula cannot agree with itself.
    static func expectedCap(_ client: ClientSettings, afterAttempt attempt: Int, timeScale: Double) -> Double {
        let limit = client.maxDelay.seconds * timeScale
        var cap = client.baseDelay.seconds * timeScale
        guard cap > 0 else { return 0 }
        var doublings = 0
        while doublings < attempt && cap < limit {
            cap *= 2
            doublings += 1
        }
        return min(limit, cap)
    }

    /// Whether a reported cap is the expected one (relative 1e-9: the same arithmetic, in any order).
    static func sameCap(_ reported: Double, _ expected: Double) -> Bool {
        abs(reported - expected) <= 1e-9 * max(abs(expected), 1e-9)
    }

    /// How strongly the realized excess (gap − reported delay) depends on the reported position in
    /// the cap: Spearman's rank correlation as a z-score, |ρ| × √(n − 1), about |N(0,1)| when the SDK
    /// waits what it reports (the excess is then timer and transport overshoot, independent of the
    /// random draw). Ranks keep a few long stalls from hiding the dependence. NaN below 10 samples.
    static func realizedDependence(_ pairs: [(position: Double, excess: Double)]) -> Double {
        rankDependence(pairs.map { ($0.position, $0.excess) })
    }

    /// The window within which two retries count as asking for their draws at the same moment
    /// (seconds on the ledger's clock).
    static let pairWindow = 0.001

    /// Retries that asked for their draws at about the same moment: the jittered retries in the
    /// order their failed attempts ended at the server (ties by send), each with the next one when
    /// it ended within `pairWindow` of it. An SDK that seeds its random source from a clock, or
    /// shares one draw between callers, gives such neighbours equal or related draws; a correct one
    /// gives independent ones (the lag-one serial correlation of independent values is about
    /// N(0, 1/n)).
    static func simultaneousPairs(_ timed: [(at: Double, sendID: Int, position: Double)]) -> [(Double, Double)] {
        let sorted = timed.sorted { ($0.at, $0.sendID) < ($1.at, $1.sendID) }
        guard sorted.count >= 2 else { return [] }
        return (1..<sorted.count).compactMap { index in
            sorted[index].at - sorted[index - 1].at <= pairWindow
                ? (sorted[index - 1].position, sorted[index].position) : nil
        }
    }

    /// Spearman's rank correlation of the pairs as a z-score, |ρ| × √(n − 1); NaN below 10 pairs.
    static func rankDependence(_ pairs: [(Double, Double)]) -> Double {
        guard pairs.count >= 10 else { return .nan }
        let x = ranks(pairs.map(\.0))
        let y = ranks(pairs.map(\.1))
        let n = Double(pairs.count)
        let mean = (n + 1) / 2
        var sxy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for index in x.indices {
            let dx = x[index] - mean
            let dy = y[index] - mean
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        }
        guard sxx > 0, syy > 0 else { return 0 }
        return abs(sxy / (sxx * syy).squareRoot()) * (n - 1).squareRoot()
    }

    /// 1-based ranks, ties sharing their average rank.
    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var result = Array(repeating: 0.0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for position in start...end { result[order[position]] = rank }
            start = end + 1
        }
        return result
    }

    init(scenario: Scenario, history: History, ledger: LedgerIndex) {
        var recorder = MetricRecorder(scenario: scenario.name)
        var waits = Waits(scenario: scenario, history: history, ledger: ledger)
        for backoff in history.backoffs { samples.append(waits.sample(backoff)) }
        normalized = waits.normalized
        Self.recordDistribution(normalized, byAttempt: waits.byAttempt, into: &recorder)
        let overLimitRetried = Self.overLimitRetried(scenario: scenario, records: history.records, ledger: ledger)
        recorder.record(.jitterRetryAfterWaits, Double(waits.retryAfterWaits))
        recorder.record(.jitterRetryAfterMismatches, Double(waits.retryAfterMismatches))
        recorder.record(.jitterOverLimitRetried, Double(overLimitRetried))
        recorder.record(.jitterEarlyRetries, Double(waits.earlyRetries))
        recorder.record(.jitterCapMismatches, Double(waits.capMismatches))
        recorder.record(.jitterRealizedSamples, Double(waits.realized.count))
        recorder.record(.jitterRealizedDependence, Self.realizedDependence(waits.realized))
        let pairs = Self.simultaneousPairs(waits.timed)
        recorder.record(.jitterPairSamples, Double(pairs.count))
        recorder.record(.jitterPairDependence, Self.rankDependence(pairs))
        recorder.record(waits.overshoot, as: .jitterOvershoot, divisor: 1e6)
        if scenario.clock == .virtual {
            ExactTiming(scenario: scenario, history: history, ledger: ledger).record(into: &recorder)
        }
        rows = recorder.rows
        metrics = recorder.metrics
    }

    /// The pooled waits' distance from U(0, 1) and their moments, and each attempt's alone.
    static func recordDistribution(
        _ normalized: [Double], byAttempt: [Int: [Double]], into recorder: inout MetricRecorder
    ) {
        let pooled = KolmogorovSmirnov(uniform: normalized)
        let moments = Moments(normalized)
        recorder.record(.jitterSamples, Double(pooled.n))
        recorder.record(.jitterKSD, pooled.d)
        recorder.record(.jitterKSCritical, pooled.critical(alpha: 0.05))
        recorder.record(.jitterKSCritical01, pooled.critical(alpha: 0.01))
        recorder.record(.jitterKSCritical001, pooled.critical(alpha: 0.001))
        recorder.record(.jitterKSP, pooled.p)
        recorder.record(.jitterMean, moments.mean)
        recorder.record(.jitterVariance, moments.variance)
        recorder.record(.jitterMeanExpected, 0.5)
        recorder.record(.jitterVarianceExpected, 1.0 / 12)
        for (attempt, values) in byAttempt.sorted(by: { $0.key < $1.key }) {
            let test = KolmogorovSmirnov(uniform: values)
            let figures: [(JitterAttemptStatistic, Double)] = [
                (.ksD, test.d), (.ksCritical, test.critical(alpha: 0.05)),
                (.ksCritical001, test.critical(alpha: 0.001)),
                (.ksP, test.p), (.samples, Double(test.n)),
            ]
            for (statistic, value) in figures {
                recorder.record(.jitterPerAttempt(statistic, attempt: attempt + 1), value)
            }
        }
    }

    /// Sends retried after an answer (that reached the client) whose Retry-After was over the limit.
    /// Sends that share an explicit key share their requests, so another send's first attempt is
    /// not a retry: they are left out, as are sends a refuse window may have hidden attempts of.
    static func overLimitRetried(scenario: Scenario, records: [History.Record], ledger: LedgerIndex) -> Int {
        guard scenario.client.explicitKeys == nil else { return 0 }
        let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        // A refused attempt never reaches the ledger: the client's attempts and the server's no
        // longer line up for a send that lived through a refuse window.
        let refused = RefuseWindows(scenario)
        var count = 0
        for record in records where record.attempts > 1 && !refused.touches(record) {
            let attempts = ledger.attempts(sendID: scenario.benchID(record.sendID))
            let statuses = record.attemptStatuses
            // An answer the client got (its status as the server sent it) that it may retry.
            let retried = ContractProperty.retriedPastLimit(requests: statuses.count) { index in
                let status = statuses[index]
                return ContractAnswer.retried(status: Int(status)) && index < attempts.count
                    && UInt16(attempts[index].status) == status && Double(attempts[index].retryAfter) > limit * 1.0001
            }
            if retried { count += 1 }
        }
        return count
    }

    /// `bin_low,bin_high,observed,expected` over 20 equal bins of [0, 1).
    func histogramCSV(bins: Int = 20) -> String {
        var counts = Array(repeating: 0, count: bins)
        for value in normalized { counts[min(bins - 1, max(0, Int(value * Double(bins))))] += 1 }
        let expected = Double(normalized.count) / Double(bins)
        var text = "bin_low,bin_high,observed,expected\n"
        for index in 0..<bins {
            text += "\(Double(index) / Double(bins)),\(Double(index + 1) / Double(bins)),\(counts[index]),\(expected)\n"
        }
        return text
    }

    func samplesCSV() -> String {
        var text = ResultFile.JitterSampleColumn.header + "\n"
        for sample in samples {
            text +=
                CSV.line([
                    String(sample.sendID), String(sample.afterAttempt + 1), sample.cause,
                    SummaryCSV.format(sample.delay),
                    SummaryCSV.format(sample.cap), SummaryCSV.format(sample.normalized),
                    SummaryCSV.format(sample.serverRetryAfter), SummaryCSV.format(sample.realizedGap),
                    SummaryCSV.format(sample.expectedCap),
                ]) + "\n"
        }
        return text
    }
}
