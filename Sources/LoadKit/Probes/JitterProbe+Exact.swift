import FakeFrontmail
import Foundation

extension JitterProbe {
    /// Timing verdicts from the server's ledger alone, for runs on virtual time, where the server
    /// knows each attempt's arrival and end to the nanosecond and the in-process transport takes
    /// no time: the gap between an answer carrying a Retry-After and the next attempt of that send
    /// must equal the Retry-After; the gap after any other retried answer, divided by the policy's
    /// cap, must be uniform (and below 1); an attempt the client abandoned must end exactly one policy timeout
    /// after it arrived. Nothing here reads what the SDK reported about itself.
    struct ExactTiming {
        /// The most a virtual-time gap may differ from its expectation.
        static let tolerance = 1e-6

        var retryAfterWaits = 0
        var retryAfterGapErrors = 0
        var realized: [Double] = []
        /// Jittered waits longer than their cap (no draw in [0, 1) gives one).
        var overCap = 0
        var timeouts = 0
        var timeoutMismatches = 0

        init(scenario: Scenario, history: History, ledger: LedgerIndex) {
            // Sends that share a key share their attempts: their gaps are not one client's waits.
            guard scenario.client.explicitKeys == nil else { return }
            let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
            let timeout = scenario.client.timeout.seconds * scenario.timeScale
            // A send that lived through a refuse window may have attempts the ledger never saw.
            let refused = RefuseWindows(scenario)
            for record in history.records where !refused.touches(record) {
                let attempts = ledger.attempts(sendID: scenario.benchID(history.number(record.sendID)))
                for (index, attempt) in attempts.enumerated() {
                    if attempt.clientGone {
                        timeouts += 1
                        let held = attempt.finished - attempt.arrival
                        // An attempt whose end the ledger lacks is not judged here.
                        if !held.isNaN,
                            ContractProperty.outsideWindow(
                                held, low: timeout, high: timeout, early: Self.tolerance, late: Self.tolerance)
                        {
                            timeoutMismatches += 1
                        }
                        continue
                    }
                    guard index + 1 < attempts.count, attempt.finished.isFinite else { continue }
                    let gap = attempts[index + 1].arrival - attempt.finished
                    let retryAfter = Double(attempt.retryAfter)
                    let answered = attempt.status != 0 && attempt.action != .fault(.truncate)
                    if answered, retryAfter.isFinite, retryAfter <= limit {
                        retryAfterWaits += 1
                        let meant = max(0, retryAfter)
                        if ContractProperty.outsideWindow(
                            gap, low: meant, high: meant, early: Self.tolerance, late: Self.tolerance)
                        {
                            retryAfterGapErrors += 1
                        }
                    } else if !retryAfter.isFinite || !answered {
                        let cap = JitterProbe.expectedCap(
                            scenario.client, afterAttempt: index, timeScale: scenario.timeScale)
                        if ContractProperty.outsideWindow(
                            gap, low: 0, high: cap, early: .infinity, late: Self.tolerance)
                        {
                            overCap += 1
                        }
                        // Which sends a refuse window leaves out depends on how long they waited,
                        // so with one in the plan the waits left are not a fair sample.
                        if cap > 0, refused.isEmpty { realized.append(gap / cap) }
                    }
                }
            }
        }

        func record(into recorder: inout MetricRecorder) {
            let test = KolmogorovSmirnov(uniform: realized)
            recorder.record(.jitterExactRetryAfterWaits, Double(retryAfterWaits))
            recorder.record(.jitterExactRetryAfterGapErrors, Double(retryAfterGapErrors))
            recorder.record(.jitterExactRealizedSamples, Double(test.n))
            recorder.record(.jitterExactOverCap, Double(overCap))
            recorder.record(.jitterExactRealizedKSD, test.d)
            recorder.record(.jitterExactRealizedKSCritical001, test.critical(alpha: 0.001))
            recorder.record(.attemptsExactTimeouts, Double(timeouts))
            recorder.record(.attemptsExactTimeoutMismatches, Double(timeoutMismatches))
        }
    }
}
