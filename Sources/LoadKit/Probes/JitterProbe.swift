import FakeFrontmail
import Foundation
import Frontmail

/// Backoff jitter: jittered delays normalised by their cap must be U(0,1) (KS test, pooled and per
/// attempt); Retry-After waits must equal the header; over-limit Retry-After must not be retried;
/// the realized gap at the server minus the intended delay is reported as overshoot.
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
    }

    var samples: [Sample] = []
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    var normalized: [Double] = []

    /// Tolerance when comparing a Retry-After wait with the header, in seconds (real time).
    static let retryAfterTolerance = 0.05

    init(scenario: Scenario, history: History, ledger: LedgerIndex) {
        var builder = SummaryBuilder(scenario: scenario.name)
        var byAttempt: [Int: [Double]] = [:]
        var retryAfterWaits = 0
        var retryAfterMismatches = 0
        var earlyRetries = 0
        var overshoot = Histogram()
        let records = history.records
        for backoff in history.backoffs {
            let benchID = scenario.benchID(backoff.sendID)
            let served = ledger.attempt(sendID: benchID, number: backoff.afterAttempt + 1)
            let nextArrival = ledger.attempt(sendID: benchID, number: backoff.afterAttempt + 2)?.arrival
            let gap = (nextArrival.map { $0 - (served?.finished ?? .nan) }) ?? .nan
            var sample = Sample(
                sendID: backoff.sendID, afterAttempt: backoff.afterAttempt, cause: "", delay: backoff.delay, cap: .nan,
                normalized: .nan, serverRetryAfter: served.map { Double($0.retryAfter) } ?? .nan, realizedGap: gap)
            // The server asked for a wait the client must honour exactly (not over the limit), when
            // its answer reached the client (a deadline may have fired first).
            let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
            let statuses = records[backoff.sendID].attemptStatuses
            let received =
                backoff.afterAttempt < statuses.count && statuses[backoff.afterAttempt] != 0
                && served.map { UInt16($0.status) == statuses[backoff.afterAttempt] } == true
            let asked = received && sample.serverRetryAfter.isFinite && sample.serverRetryAfter <= limit
            switch backoff.cause {
            case .jitter(let cap):
                if asked {
                    retryAfterWaits += 1
                    retryAfterMismatches += 1
                }
                sample.cause = "jitter"
                sample.cap = cap
                if cap > 0 {
                    sample.normalized = backoff.delay / cap
                    normalized.append(sample.normalized)
                    byAttempt[backoff.afterAttempt, default: []].append(sample.normalized)
                }
            case .retryAfter(let seconds):
                sample.cause = "retry_after"
                retryAfterWaits += 1
                if !(abs(seconds - sample.serverRetryAfter) <= Self.retryAfterTolerance) || backoff.delay != seconds {
                    retryAfterMismatches += 1
                }
            }
            if gap.isFinite {
                let excess = gap - backoff.delay
                if excess < -Self.retryAfterTolerance { earlyRetries += 1 }
                // Real time: timer and network overshoot do not shrink with the time scale.
                overshoot.record(max(0, excess), scale: 1e9)
            }
            samples.append(sample)
        }
        let overLimitRetried = Self.overLimitRetried(scenario: scenario, records: records, ledger: ledger)

        let pooled = KolmogorovSmirnov(uniform: normalized)
        let moments = Moments(normalized)
        func put(_ name: String, _ value: Double, _ unit: String, statistic: String = "value") {
            builder.add("jitter", name, statistic, value, unit)
            metrics[statistic == "value" ? "jitter.\(name)" : "jitter.\(name).\(statistic)"] = value
        }
        put("samples", Double(pooled.n), "delays")
        put("ks_d", pooled.d, "D")
        put("ks_critical", pooled.critical(alpha: 0.05), "D")
        put("ks_critical_01", pooled.critical(alpha: 0.01), "D")
        put("ks_critical_001", pooled.critical(alpha: 0.001), "D")
        put("ks_p", pooled.p, "p")
        put("mean", moments.mean, "x cap")
        put("variance", moments.variance, "x cap^2")
        builder.add("jitter", "mean", "expected", 0.5, "x cap")
        builder.add("jitter", "variance", "expected", 1.0 / 12, "x cap^2")
        for (attempt, values) in byAttempt.sorted(by: { $0.key < $1.key }) {
            let test = KolmogorovSmirnov(uniform: values)
            put("ks_d", test.d, "D", statistic: "attempt\(attempt + 1)")
            put("ks_critical", test.critical(alpha: 0.05), "D", statistic: "attempt\(attempt + 1)")
            put("ks_critical_001", test.critical(alpha: 0.001), "D", statistic: "attempt\(attempt + 1)")
            put("ks_p", test.p, "p", statistic: "attempt\(attempt + 1)")
            put("samples", Double(test.n), "delays", statistic: "attempt\(attempt + 1)")
        }
        put("retry_after_waits", Double(retryAfterWaits), "waits")
        put("retry_after_mismatches", Double(retryAfterMismatches), "waits")
        put("over_limit_retried", Double(overLimitRetried), "sends")
        put("early_retries", Double(earlyRetries), "retries")
        builder.add("jitter", "overshoot", histogram: overshoot, divisor: 1e6, unit: "ms")
        for (name, quantile) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
            metrics["jitter.overshoot.\(name)"] = overshoot.count > 0 ? overshoot.value(at: quantile) / 1e6 : .nan
        }
        rows = builder.rows
    }

    /// Sends retried after an answer (that reached the client) whose Retry-After was over the limit.
    static func overLimitRetried(scenario: Scenario, records: [History.Record], ledger: LedgerIndex) -> Int {
        let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        var count = 0
        for record in records where record.attempts > 1 {
            let attempts = ledger.attempts(sendID: scenario.benchID(record.sendID))
            for (index, status) in record.attemptStatuses.enumerated().dropLast() where status == 429 || status >= 500 {
                guard index < attempts.count, UInt16(attempts[index].status) == status else { continue }
                if Double(attempts[index].retryAfter) > limit * 1.0001 {
                    count += 1
                    break
                }
            }
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
        var text = "send_id,after_attempt,cause,delay_s,cap_s,normalized,server_retry_after_s,realized_gap_s\n"
        for sample in samples {
            text +=
                CSV.line([
                    String(sample.sendID), String(sample.afterAttempt + 1), sample.cause,
                    SummaryCSV.format(sample.delay),
                    SummaryCSV.format(sample.cap), SummaryCSV.format(sample.normalized),
                    SummaryCSV.format(sample.serverRetryAfter), SummaryCSV.format(sample.realizedGap),
                ]) + "\n"
        }
        return text
    }
}
