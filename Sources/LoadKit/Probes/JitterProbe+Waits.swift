import FakeFrontmail
import Foundation

extension JitterProbe {
    /// Each wait the client reported, against what the server asked and when its next request
    /// came: a Retry-After waited exactly, a jittered wait within its policy's cap, no retry early.
    struct Waits {
        let scenario: Scenario
        let history: History
        let ledger: LedgerIndex
        /// A send's record by its number (a merged or sharded history is not indexed by it).
        private let position: (Int) -> Int?
        /// The longest Retry-After the client honours, in the run's seconds.
        private let limit: Double

        private(set) var normalized: [Double] = []
        private(set) var byAttempt: [Int: [Double]] = [:]
        private(set) var retryAfterWaits = 0
        private(set) var retryAfterMismatches = 0
        private(set) var earlyRetries = 0
        private(set) var capMismatches = 0
        private(set) var realized: [(position: Double, excess: Double)] = []
        /// Each jittered retry's normalised draw and when its failed attempt ended at the server.
        private(set) var timed: [(at: Double, sendID: Int, position: Double)] = []
        private(set) var overshoot = Histogram()

        init(scenario: Scenario, history: History, ledger: LedgerIndex) {
            self.scenario = scenario
            self.history = history
            self.ledger = ledger
            position = History.Record.positions(history.records)
            limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        }

        /// One reported wait, judged; its sample for the CSV.
        mutating func sample(_ backoff: History.Backoff) -> Sample {
            let benchID = scenario.benchID(backoff.sendID)
            let served = ledger.attempt(sendID: benchID, number: backoff.afterAttempt + 1)
            let nextArrival = ledger.attempt(sendID: benchID, number: backoff.afterAttempt + 2)?.arrival
            // Sends that share a key share their attempts: the server's gaps are not one client's
            // waits (on virtual time many sends' attempts meet at one instant), so none is kept.
            let sharedKey = scenario.client.explicitKeys != nil
            let statuses = position(backoff.sendID).map { history.records[$0].attemptStatuses } ?? []
            // Over sockets libcurl may resend a request below the SDK (after a close or a reset on a
            // reused connection): then the server's attempt of a number is not the client's.
            let aligned = scenario.transport != .socket || ledger.count(sendID: benchID) == statuses.count
            let gap =
                sharedKey || !aligned ? .nan : (nextArrival.map { $0 - (served?.finished ?? .nan) }) ?? .nan
            var sample = Sample(
                sendID: backoff.sendID, afterAttempt: backoff.afterAttempt, cause: "", delay: backoff.delay, cap: .nan,
                normalized: .nan, serverRetryAfter: served.map { Double($0.retryAfter) } ?? .nan, realizedGap: gap)
            // The server asked for a wait the client must honour exactly (not over the limit), when
            // its answer reached the client (a deadline may have fired first).
            let received =
                backoff.afterAttempt < statuses.count && statuses[backoff.afterAttempt] != 0
                && served.map { UInt16($0.status) == statuses[backoff.afterAttempt] } == true
            // With a shared key, the server's attempt of that number may be another send's.
            let asked =
                !sharedKey && aligned && received && sample.serverRetryAfter.isFinite
                && sample.serverRetryAfter <= limit
            switch backoff.cause {
            case .jitter(let cap):
                if asked {
                    retryAfterWaits += 1
                    retryAfterMismatches += 1
                }
                judgeJitter(backoff, cap: cap, served: served, gap: gap, received: received, into: &sample)
            case .retryAfter(let seconds):
                sample.cause = "retry_after"
                retryAfterWaits += 1
                if !sharedKey && aligned && !(abs(seconds - sample.serverRetryAfter) <= JitterProbe.retryAfterTolerance)
                    || backoff.delay != seconds
                {
                    retryAfterMismatches += 1
                }
            }
            if gap.isFinite {
                let excess = gap - backoff.delay
                if ContractProperty.outsideWindow(
                    gap, low: backoff.delay, high: .infinity, early: JitterProbe.retryAfterTolerance, late: 0)
                {
                    earlyRetries += 1
                }
                // Real time: timer and network overshoot do not shrink with the time scale.
                overshoot.record(max(0, excess), scale: 1e9)
            }
            return sample
        }

        /// A jittered wait: its cap the policy's, its draw pooled (and timed, and set against the
        /// server's gap where the answer reached the client).
        private mutating func judgeJitter(
            _ backoff: History.Backoff, cap: Double, served: LedgerRecord?, gap: Double, received: Bool,
            into sample: inout Sample
        ) {
            sample.cause = "jitter"
            sample.cap = cap
            let expected = JitterProbe.expectedCap(
                scenario.client, afterAttempt: backoff.afterAttempt, timeScale: scenario.timeScale)
            sample.expectedCap = expected
            if !JitterProbe.sameCap(cap, expected) { capMismatches += 1 }
            guard expected > 0 else {
                if backoff.delay != 0 { capMismatches += 1 }
                return
            }
            sample.normalized = backoff.delay / expected
            normalized.append(sample.normalized)
            byAttempt[backoff.afterAttempt, default: []].append(sample.normalized)
            // Only when the answer reached the client: after a timeout or a reset the server's end
            // of the attempt is not when the client's wait began.
            if gap.isFinite && received { realized.append((sample.normalized, gap - backoff.delay)) }
            if let at = served?.finished, at.isFinite {
                timed.append((at, backoff.sendID, sample.normalized))
            }
        }
    }
}
