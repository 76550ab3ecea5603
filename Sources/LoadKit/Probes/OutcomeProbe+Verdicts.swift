import FakeFrontmail
import Foundation

extension OutcomeProbe {
    /// The verdicts of `OutcomeProbe` that compare the SDK's account of each send with the server's
    /// ledger and the scenario file: hidden or invented attempts, too many, one after an answer that
    /// ends the send, giving up early, the wrong error, and which of those broke on a hostile answer.
    struct SendVerdicts {
        let scenario: Scenario
        let ledger: LedgerIndex
        /// The SDK's attempts (all, and answered) per bench id, and how many sends share it.
        private(set) var reported: [Int: (sends: Int, attempts: Int, answered: Int)] = [:]
        /// On the real clock: the status each attempt's answer had as the client saw it (0: none).
        private var seen: [Int: [UInt16]] = [:]
        /// A budget may refuse a retry, and a refused connection never reaches the ledger: giving
        /// up early is judged where neither can hide an attempt.
        private let refused: RefuseWindows
        let judgesGivingUp: Bool
        private let limit: Double
        private let deadline: Double?

        private var unreported = 0
        private var unseen = 0
        private var errorsChecked = 0
        private var errorMismatches = 0
        private var overLimit = 0
        private var afterFinal = 0
        private var gaveUp = 0
        private var hostileSends: Set<Int> = []
        private var misjudged: Set<Int> = []

        init(scenario: Scenario, records: [History.Record], ledger: LedgerIndex) {
            self.scenario = scenario
            self.ledger = ledger
            refused = RefuseWindows(scenario)
            judgesGivingUp = scenario.client.budget == .none && refused.isEmpty
            limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
            deadline = scenario.clock == .real ? scenario.client.timeout.seconds * scenario.timeScale : nil
            for record in records where record.outcome != .dropped {
                let answered = record.attemptStatuses.lazy.filter { $0 != 0 }.count
                let benchID = scenario.benchID(record.sendID)
                let group = reported[benchID, default: (0, 0, 0)]
                reported[benchID] = (group.sends + 1, group.attempts + record.attempts, group.answered + answered)
                if scenario.clock == .real { seen[benchID] = record.attemptStatuses }
            }
        }

        /// Request `index` of a send's `served`: whether it ends the send, nil when unknown.
        func endsAt(_ served: [LedgerRecord], _ index: Int, _ benchID: Int) -> Bool? {
            let ends = OutcomeProbe.ends(served[index], limit: limit, deadline: deadline)
            guard let statuses = seen[benchID], ends != nil, OutcomeProbe.delivered(served[index]) else { return ends }
            // On the real clock, a client's deadline may pass while an answer is on its way (it
            // waited in URLSession's queue before the server saw it): an answer the client says it
            // never saw decides nothing. Where libcurl resent a request (after a close or a reset)
            // the attempts do not line up; a resend with neither is judged as the server saw it.
            if statuses.count == served.count { return statuses[index] == 0 ? nil : ends }
            if OutcomeProbe.transportResends(served, scenario) > 0 { return ends == true ? nil : ends }
            // More attempts than requests: some never left URLSession's queue before the client's
            // deadline (a session busy delivering large answers), so request `index` was one of the
            // client's attempts `index` to `index + lost`, in order. An answer decides only if the
            // client saw one for some attempt among those.
            let lost = statuses.count - served.count
            guard lost > 0, index + lost < statuses.count else { return ends }
            return statuses[index...(index + lost)].allSatisfy { $0 == 0 } ? nil : ends
        }

        /// Each send's requests against its attempts and the contract (sends that share a bench id
        /// are checked as a group, for their count only).
        mutating func judgeRequests() {
            for (benchID, group) in reported {
                let count = ledger.count(sendID: benchID)
                unreported += max(0, count - group.attempts)
                unseen += max(0, group.answered - count)
                guard group.sends == 1 else { continue }
                judgeRequests(of: benchID, count: count)
            }
        }

        private mutating func judgeRequests(of benchID: Int, count: Int) {
            let served = ledger.attempts(sendID: benchID)
            let maxAttempts = scenario.client.maxRetries + 1
            let allowed = maxAttempts + OutcomeProbe.transportResends(served, scenario)
            if ContractProperty.overAttempts(requests: count, maxAttempts: allowed) { overLimit += 1 }
            let hostile = served.contains { OutcomeProbe.hostile($0, scenario.plan) }
            if hostile { hostileSends.insert(benchID) }
            if ContractProperty.retriedAfterFinal(requests: served.count, ends: { endsAt(served, $0, benchID) }) {
                afterFinal += 1
                if hostile { misjudged.insert(benchID) }
            }
            let lastEnds = served.isEmpty ? nil : endsAt(served, served.count - 1, benchID)
            // On the real clock the client's attempts are counted where it hands them to URLSession:
            // one that never left its queue is an attempt made, though the server never saw it.
            let made = max(served.count, seen[benchID]?.count ?? 0)
            if judgesGivingUp,
                ContractProperty.gaveUpEarly(requests: made, maxAttempts: maxAttempts, lastEnds: lastEnds)
            {
                gaveUp += 1
                if hostile { misjudged.insert(benchID) }
            }
        }

        /// A send that ended (`failed`: the code and status it threw; nil: called sent) against the
        /// plan's error its last request got in full: a sent one ignored it, a failed one must throw
        /// it. The ledger's last request is the client's last attempt unless a refusal hid one.
        mutating func judgeLastAnswer(of record: History.Record, failed: (code: String, status: Int?)?) {
            let benchID = scenario.benchID(record.sendID)
            let served = ledger.attempts(sendID: benchID)
            guard (reported[benchID]?.sends ?? 1) == 1, !refused.touches(record), let last = served.last,
                endsAt(served, served.count - 1, benchID) != nil,
                let answer = OutcomeProbe.planError(last, scenario.plan)
            else { return }
            errorsChecked += 1
            if let failed, answer.code == failed.code, answer.status == failed.status { return }
            errorMismatches += 1
            if hostileSends.contains(benchID) { misjudged.insert(benchID) }
        }

        func record(into recorder: inout MetricRecorder) {
            recorder.record(.sendErrorsChecked, Double(errorsChecked))
            recorder.record(.sendErrorMismatches, Double(errorMismatches))
            recorder.record(.attemptsUnreported, Double(unreported))
            recorder.record(.attemptsUnseen, Double(unseen))
            recorder.record(.attemptsOverLimit, Double(overLimit))
            recorder.record(.attemptsAfterFinalAnswer, Double(afterFinal))
            if judgesGivingUp { recorder.record(.attemptsGaveUpEarly, Double(gaveUp)) }
            recorder.record(.survivesHostileSends, Double(hostileSends.count))
            recorder.record(.survivesMisjudged, Double(misjudged.count))
        }
    }
}
