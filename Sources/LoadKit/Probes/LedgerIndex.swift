import FakeFrontmail
import Foundation

/// The ledger's send records grouped by the harness's send id, attempts in arrival order.
struct LedgerIndex {
    let records: [LedgerRecord]
    let keys: [String]
    /// Send id → indices into `records`.
    private(set) var bySend: [Int: [Int]] = [:]
    /// Records of sends with no (or an unknown) bench id.
    private(set) var orphans: [Int] = []

    init(_ ledger: AttemptLedger) {
        records = ledger.records
        keys = ledger.keyTable
        for (index, record) in records.enumerated() where record.endpoint == .send {
            if record.benchSendID >= 0 {
                bySend[Int(record.benchSendID), default: []].append(index)
            } else {
                orphans.append(index)
            }
        }
    }

    var sendRequests: Int { records.lazy.filter { $0.endpoint == .send }.count }

    /// How many requests the server saw for a send (without copying them).
    func count(sendID: Int) -> Int { bySend[sendID]?.count ?? 0 }

    func attempts(sendID: Int) -> [LedgerRecord] {
        (bySend[sendID] ?? []).map { records[$0] }
    }

    /// The `number`-th (1-based) request the server saw for a send.
    func attempt(sendID: Int, number: Int) -> LedgerRecord? {
        guard let indices = bySend[sendID], number >= 1, number <= indices.count else { return nil }
        return records[indices[number - 1]]
    }
}
