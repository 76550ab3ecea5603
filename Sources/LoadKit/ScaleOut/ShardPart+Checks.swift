import FakeFrontmail
import Foundation

/// What a part read back must hold before `merge` counts, indexes or shifts by it: every number
/// in its range, every send in the shard it claims. A part is written by this tool, so a value out
/// of range means a damaged or edited file, refused naming the field.
extension ShardPart {
    /// The latest time a part's clock may show, seconds: far past any load (a day of policy time
    /// at a time scale up to 100), small enough for every sum and bucket index.
    static let maxClock = 1e7
    /// The latest wall-clock start, seconds since 1970 (the year 2286).
    static let maxWallStart = 1e10
    /// Attempts of one send: `maxRetries` is at most 100.
    static let maxAttempts = 1_000
    /// A count of attempts or requests: far beyond a run, small enough that 64 parts add up.
    static let maxCount = 1 << 40

    /// The first thing out of range, or nil: the records, the backoffs, the counts, the ledger and
    /// the capacity series, in that order.
    func problem() -> String? {
        recordsProblem() ?? backoffsProblem() ?? countsProblem() ?? ledgerProblem() ?? capacityProblem()
    }

    private var ownShard: Shard { Shard(uncheckedIndex: header.shardIndex, count: header.shardCount) }

    private func timeProblem(_ value: Double, _ field: String, optional: Bool = false) -> String? {
        if optional && value.isNaN { return nil }
        return value.isFinite && (0...Self.maxClock).contains(value)
            ? nil : "\(field) is \(value), not a time of 0-\(Int(Self.maxClock)) s"
    }

    private func sendProblem(_ id: Int, _ field: String) -> String? {
        guard (0..<LoadSettings.maxSends).contains(id) else {
            return "\(field) is \(id), not a send of 0-\(LoadSettings.maxSends - 1)"
        }
        guard header.role == .server || ownShard.owns(id) else {
            return "\(field) \(id) is not a send of \(label) (a shard holds every \(ownShard.count)-th send)"
        }
        return nil
    }

    private func recordsProblem() -> String? {
        var seen = Set<Int>()
        for (index, record) in records.enumerated() {
            let at = "records[\(index)]"
            if let problem = sendProblem(record.sendID, at + ".sendID") ?? timeProblem(
                record.intended, at + ".intended")
                ?? timeProblem(record.started, at + ".started", optional: true)
                ?? timeProblem(record.ended, at + ".ended", optional: true)
            {
                return problem
            }
            guard seen.insert(record.sendID).inserted else { return "\(at): send \(record.sendID) is listed twice" }
            if record.ended < record.started { return "\(at): it ends (\(record.ended)) before it starts" }
            switch record.outcome {
            case .ok, .failed:
                // An outcome is what a started send ends with: one without a start is not a send.
                guard record.started.isFinite, record.ended.isFinite else {
                    return "\(at): it has an outcome but no start or end time"
                }
            case .pending, .dropped: break
            }
            guard (0...Self.maxAttempts).contains(record.attempts), record.attemptStatuses.count <= Self.maxAttempts
            else {
                return "\(at).attempts is \(record.attempts), not 0-\(Self.maxAttempts)"
            }
            if case .failed(_, let status?) = record.outcome, !(0...999).contains(status) {
                return "\(at).status is \(status), not an HTTP status"
            }
        }
        return nil
    }

    private func backoffsProblem() -> String? {
        for (index, backoff) in backoffs.enumerated() {
            let at = "backoffs[\(index)]"
            if let problem = sendProblem(backoff.sendID, at + ".sendID") ?? timeProblem(backoff.delay, at + ".delay") {
                return problem
            }
            guard (0..<Self.maxAttempts).contains(backoff.afterAttempt) else {
                return "\(at).afterAttempt is \(backoff.afterAttempt), not 0-\(Self.maxAttempts - 1)"
            }
            switch backoff.cause {
            case .jitter(let cap): if let problem = timeProblem(cap, at + ".cap") { return problem }
            case .retryAfter(let seconds): if let problem = timeProblem(seconds, at + ".retryAfter") { return problem }
            }
        }
        return nil
    }

    private func countsProblem() -> String? {
        for (code, count) in attemptErrors where !(0...Self.maxCount).contains(count) {
            return "attemptErrors[\(code)] is \(count), not 0-\(Self.maxCount)"
        }
        guard attemptBuckets.count <= CapacitySeries.maxBuckets else {
            return "attemptBuckets has \(attemptBuckets.count) buckets, more than \(CapacitySeries.maxBuckets)"
        }
        if let index = attemptBuckets.firstIndex(where: { !(0...Self.maxCount).contains($0) }) {
            return "attemptBuckets[\(index)] is \(attemptBuckets[index]), not 0-\(Self.maxCount)"
        }
        return nil
    }

    private func ledgerProblem() -> String? {
        for (index, record) in ledger.enumerated() {
            let at = "ledger[\(index)]"
            if let problem = timeProblem(record.arrival, at + ".arrival")
                ?? timeProblem(record.finished, at + ".finished", optional: true)
            {
                return problem
            }
            guard (-1..<Int64(LoadSettings.maxSends)).contains(record.benchSendID) else {
                return "\(at).benchSendID is \(record.benchSendID), not -1-\(LoadSettings.maxSends - 1)"
            }
            guard record.attempt <= UInt32(Self.maxAttempts) else {
                return "\(at).attempt is \(record.attempt), not 0-\(Self.maxAttempts)"
            }
        }
        return nil
    }

    private func capacityProblem() -> String? {
        guard let capacity else { return nil }
        guard
            [capacity.busy.count, capacity.waiting.count, capacity.served.count, capacity.dead.count]
                .allSatisfy({ $0 <= CapacitySeries.maxBuckets })
        else { return "the capacity series has more than \(CapacitySeries.maxBuckets) buckets" }
        guard
            (capacity.busy + capacity.waiting).allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= Double(Self.maxCount) }),
            (capacity.served + capacity.dead).allSatisfy({ (0...Self.maxCount).contains($0) })
        else { return "the capacity series holds a value out of 0-\(Self.maxCount)" }
        return nil
    }
}

/// FNV-1a over 64 bits: the checksum of a part's bytes (it finds damage, not forgery).
enum FNV1a {
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
