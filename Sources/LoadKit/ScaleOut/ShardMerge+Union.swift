import FakeFrontmail
import Foundation

/// The server side of the parts' union: one ledger, one capacity series.
extension ShardMerge {
    /// The ledgers' union in arrival order: keys re-interned into one table, connection ids made
    /// distinct per part.
    static func mergedLedger(_ parts: [ShardPart]) -> AttemptLedger {
        if parts.count == 1 { return AttemptLedger(records: parts[0].ledger, keys: parts[0].keys) }
        var keys = KeyIndex(capacity: parts.reduce(0) { $0 + $1.keys.count })
        var merged: [(record: LedgerRecord, part: Int, index: Int)] = []
        merged.reserveCapacity(parts.reduce(0) { $0 + $1.ledger.count })
        var connectionBase: UInt32 = 0
        for (partIndex, part) in parts.enumerated() {
            let mapping = part.keys.map { key -> UInt32 in
                guard !key.isEmpty else { return 0 }
                return UInt32(keys.insert(key, fingerprint: Fingerprint.of(key)).number + 1)
            }
            var highest: UInt32 = 0
            for (index, var record) in part.ledger.enumerated() {
                record.keyID = mapping[Int(record.keyID)]
                highest = max(highest, record.connection)
                record.connection &+= connectionBase
                merged.append((record, partIndex, index))
            }
            connectionBase &+= highest
        }
        merged.sort {
            ($0.record.arrival, $0.part, $0.index) < ($1.record.arrival, $1.part, $1.index)
        }
        return AttemptLedger(records: merged.map(\.record), keys: [""] + keys.keys)
    }

    /// The capacity series of the parts that have one, bucket by bucket.
    static func mergedCapacity(_ parts: [ShardPart]) -> CapacitySeries? {
        let series = parts.compactMap(\.capacity)
        guard let first = series.first else { return nil }
        if series.count == 1 { return first }
        func sum<T: AdditiveArithmetic>(_ arrays: [[T]]) -> [T] {
            var total = [T](repeating: .zero, count: arrays.map(\.count).max() ?? 0)
            for array in arrays { for (index, value) in array.enumerated() { total[index] += value } }
            return total
        }
        return CapacitySeries(
            width: first.width, busy: sum(series.map(\.busy)), waiting: sum(series.map(\.waiting)),
            served: sum(series.map(\.served)), dead: sum(series.map(\.dead)))
    }
}
