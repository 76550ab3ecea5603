import FakeFrontmail
import Foundation

/// A certified client's sends as the server saw them: the ledger's send requests grouped by the
/// send number in their bodies (`template_params.bench_send_id`), each send's requests in arrival
/// order. Nothing here comes from the client.
package struct ServerView {
    struct Attempt {
        var record: LedgerRecord
        var key: String?

        /// The client received this answer whole: a status, no cut body, still there at the end.
        var answered: Bool { ContractAnswer.delivered(record) }

        /// The Retry-After the server meant with this answer (nil: none).
        var retryAfter: Double? { record.retryAfter.isNaN ? nil : record.retryAfter }

        /// An answer that ends the send (`ContractAnswer`: any status but 429 and 500-599, or a
        /// retryable answer whose Retry-After is over the 60 s limit), received whole.
        var final: Bool {
            answered
                && ContractAnswer.endsTheSend(
                    status: Int(record.status), retryAfter: retryAfter, limit: ServerView.retryAfterLimit)
        }
    }

    /// The contract's longest Retry-After that is waited out (§4.4).
    static let retryAfterLimit = 60.0

    /// Send number → its requests, by arrival.
    var sends: [Int: [Attempt]]
    /// Status reads (`GET /v1/messages/{id}`), by arrival.
    var statusReads: [Attempt]
    /// Send requests whose body named no send (the client changed or lost it).
    var unattributed: Int
    /// Every send request.
    var requests: Int

    init(_ ledger: AttemptLedger) {
        self.init(records: ledger.records, keys: ledger.keyTable)
    }

    init(records: [LedgerRecord], keys: [String]) {
        var sends: [Int: [Attempt]] = [:]
        var unattributed = 0
        var requests = 0
        var statusReads: [Attempt] = []
        for record in records where record.endpoint == .status {
            statusReads.append(Attempt(record: record, key: nil))
        }
        self.statusReads = statusReads.sorted { $0.record.arrival < $1.record.arrival }
        for record in records where record.endpoint == .send {
            requests += 1
            guard record.benchSendID >= 0 else {
                unattributed += 1
                continue
            }
            let key = record.keyID == 0 || Int(record.keyID) >= keys.count ? nil : keys[Int(record.keyID)]
            sends[Int(record.benchSendID), default: []].append(Attempt(record: record, key: key))
        }
        for id in sends.keys { sends[id]!.sort { $0.record.arrival < $1.record.arrival } }
        self.sends = sends
        self.unattributed = unattributed
        self.requests = requests
    }

    /// The wait before attempt `index + 1` of a send: from the end of attempt `index` (its answer
    /// sent, or its connection ended) to the next arrival. Nil when the attempt never ended.
    static func gap(_ attempts: [Attempt], after index: Int) -> Double? {
        let finished = attempts[index].record.finished
        guard finished.isFinite, index + 1 < attempts.count else { return nil }
        return attempts[index + 1].record.arrival - finished
    }
}
