import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

/// The client's truth: one record per logical send, filled in by the driver and by the SDK's
/// observer events (matched to a send through a task-local send id).
public final class History: SendObserver {
    public enum Outcome: Sendable, Hashable {
        case pending
        case ok(messageID: String)
        case failed(code: FrontmailError.Code, status: Int?)
        /// Not started: the open loop's in-flight cap was reached.
        case dropped
    }

    public struct Record: Sendable {
        public var sendID: Int
        /// When the send should have started (the open loop's schedule), seconds on the run clock.
        public var intended: Double
        public var started = Double.nan
        public var ended = Double.nan
        public var outcome = Outcome.pending
        public var attempts = 0
        public var firstKey: String?
        /// An attempt carried a different key than the first.
        public var keyChanged = false
        /// Some attempt ended without a definite answer (network error, timeout, 5xx, 409 conflict).
        public var indeterminateAttempt = false
        /// The status each attempt's answer had as the client saw it (0: no answer reached it).
        public var attemptStatuses: [UInt16] = []
    }

    /// One scheduled wait, as the SDK reported it.
    public struct Backoff: Sendable {
        /// The send's number in the unsharded run (as `Record.sendID`).
        public var sendID: Int
        /// The 0-based attempt it follows.
        public var afterAttempt: Int
        public var delay: Double
        package var cause: BackoffCause
    }

    /// The shard's local id of the send the current task makes (its place in `records`).
    @TaskLocal public static var currentSendID: Int?

    private struct State {
        var records: [Record] = []
        var backoffs: [Backoff] = []
        var inFlight = 0
        var errors: [String: Int] = [:]
        /// Attempts that ended in an error, by code (every attempt, not just the last).
        var attemptErrors: [String: Int] = [:]
        var ok = 0
        /// Retries the client's retry budget refused.
        var retriesRefused = 0
        /// Attempts started per bucket of `bucketWidth` seconds (the time series' client side).
        var attemptBuckets: [Int] = []
    }

    private let state = Mutex(State())
    /// The run's clock (seconds since the fake server started).
    let now: @Sendable () -> Double
    /// The width of the attempt-count buckets in seconds of the run's clock (a policy second).
    let bucketWidth: Double

    /// The status reads of the load (a scenario's `status` section).
    public let statusReads = StatusReadBook()

    /// Which sends of the run this process makes (`run --shard`); a record's `sendID` is the send's
    /// number in the unsharded run, its place in `records` the shard's own count (`local`).
    let shard: Shard

    init(now: @escaping @Sendable () -> Double, expected: Int = 0, bucketWidth: Double = 1, shard: Shard = .whole) {
        self.now = now
        self.bucketWidth = bucketWidth
        self.shard = shard
        state.withLock {
            $0.records.reserveCapacity(expected)
        }
    }

    /// A finished history kept elsewhere: the shards' records merged (`merge`), in any order.
    init(
        merged records: [Record], backoffs: [Backoff], attemptErrors: [String: Int], attemptBuckets: [Int],
        bucketWidth: Double
    ) {
        self.now = { 0 }
        self.bucketWidth = bucketWidth
        self.shard = .whole
        state.withLock { state in
            state.records = records
            state.backoffs = backoffs
            state.attemptErrors = attemptErrors
            state.attemptBuckets = attemptBuckets
            for record in records {
                switch record.outcome {
                case .ok: state.ok += 1
                case .failed(let code, _): state.errors[code.rawValue, default: 0] += 1
                case .pending, .dropped: break
                }
            }
        }
    }

    /// Records the shard's `local`-th send (which must be the next one), send `number` of the
    /// unsharded run.
    func schedule(_ local: Int, number: Int, intended: Double, dropped: Bool = false) {
        state.withLock { state in
            precondition(local == state.records.count, "send ids are assigned in order")
            var record = Record(sendID: number, intended: intended)
            if dropped { record.outcome = .dropped }
            state.records.append(record)
        }
    }

    /// Schedules the shard's next send to start now, unless `limit` sends were scheduled already;
    /// returns its local id.
    func scheduleNext(limit: Int) -> Int? {
        let at = now()
        let shard = shard
        return state.withLock { state -> Int? in
            let local = state.records.count
            guard local < limit else { return nil }
            state.records.append(Record(sendID: shard.global(local), intended: at))
            return local
        }
    }

    /// The unsharded send number of the shard's `local`-th send.
    func number(_ local: Int) -> Int { shard.global(local) }

    /// The unsharded number of the first send that failed (nil: none did).
    var firstFailedSend: Int? {
        records.first { record in
            if case .failed = record.outcome { return true }
            return false
        }.map { number($0.sendID) }
    }

    func started(_ sendID: Int) {
        let at = now()
        state.withLock { state in
            state.records[sendID].started = at
            state.inFlight += 1
        }
    }

    func finished(_ sendID: Int, _ outcome: Outcome) {
        let at = now()
        state.withLock { state in
            state.records[sendID].ended = at
            state.records[sendID].outcome = outcome
            state.inFlight -= 1
            switch outcome {
            case .ok: state.ok += 1
            case .failed(let code, _): state.errors[code.rawValue, default: 0] += 1
            case .pending, .dropped: break
            }
        }
    }

    package func record(_ event: SendEvent) {
        if event.operation == .status {
            statusReads.record(event)
            return
        }
        guard let sendID = Self.currentSendID else { return }
        switch event {
        case .attemptStarted(_, let key, _, _):
            let bucket = min(CapacitySeries.maxBuckets - 1, max(0, Int(now() / bucketWidth)))
            state.withLock { state in
                if state.attemptBuckets.count <= bucket {
                    state.attemptBuckets.append(
                        contentsOf: repeatElement(0, count: bucket + 1 - state.attemptBuckets.count))
                }
                state.attemptBuckets[bucket] += 1
                state.records[sendID].attempts += 1
                if let first = state.records[sendID].firstKey {
                    if first != key { state.records[sendID].keyChanged = true }
                } else {
                    state.records[sendID].firstKey = key
                }
            }
        case .attemptFinished(_, _, _, let status, let code, _):
            let definite: Bool
            if let status {
                definite = status < 500 && code != .conflict
            } else {
                definite = false
            }
            state.withLock { state in
                state.records[sendID].attemptStatuses.append(UInt16(clamping: status ?? 0))
                if !definite { state.records[sendID].indeterminateAttempt = true }
                if let code { state.attemptErrors[code.rawValue, default: 0] += 1 }
            }
        case .backoffScheduled(_, _, let afterAttempt, let delay, let cause):
            state.withLock { state in
                state.backoffs.append(
                    Backoff(
                        sendID: state.records[sendID].sendID, afterAttempt: afterAttempt, delay: delay, cause: cause))
            }
        case .retryRefused:
            state.withLock { $0.retriesRefused += 1 }
        }
    }

    public var records: [Record] { state.withLock { $0.records } }
    public var backoffs: [Backoff] { state.withLock { $0.backoffs } }
    public var attemptErrors: [String: Int] { state.withLock { $0.attemptErrors } }
    /// Retries the client's retry budget refused.
    public var retriesRefused: Int { state.withLock { $0.retriesRefused } }
    /// Attempts the SDK reported starting, per bucket of `bucketWidth` seconds.
    public var attemptBuckets: [Int] { state.withLock { $0.attemptBuckets } }

    /// For progress lines: scheduled, finished ok, in flight, errors by code.
    typealias Snapshot = (scheduled: Int, ok: Int, inFlight: Int, errors: [String: Int])

    var snapshot: Snapshot {
        state.withLock { ($0.records.count, $0.ok, $0.inFlight, $0.errors) }
    }
}

extension History.Record {
    /// Where each send's record is in `records`, by the send's number: the identity for one whole
    /// run (no table is built), a table for a shard's or a merged history.
    static func positions(_ records: [History.Record]) -> (Int) -> Int? {
        if records.indices.allSatisfy({ records[$0].sendID == $0 }) {
            return { number in records.indices.contains(number) ? number : nil }
        }
        var table: [Int: Int] = [:]
        table.reserveCapacity(records.count)
        for (index, record) in records.enumerated() { table[record.sendID] = index }
        return { table[$0] }
    }

    /// Jepsen's three outcomes: ok, fail (definitely not applied), info (unknown).
    public enum Verdict: String, Sendable { case ok, fail, info, dropped }

    public var verdict: Verdict {
        switch outcome {
        case .ok: return .ok
        case .dropped: return .dropped
        case .pending: return .info
        case .failed(let code, let status):
            guard let status, status >= 400, status < 500, code != .conflict, !indeterminateAttempt else {
                return .info
            }
            return .fail
        }
    }
}

extension SendEvent {
    /// The operation the event belongs to.
    var operation: OperationKind {
        switch self {
        case .attemptStarted(let operation, _, _, _), .attemptFinished(let operation, _, _, _, _, _),
            .backoffScheduled(let operation, _, _, _, _), .retryRefused(let operation, _, _, _, _):
            return operation
        }
    }
}
