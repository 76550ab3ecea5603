import Foundation

extension JSONWriter {
    /// Writes an encoded tree with sorted keys (the last value of a repeated key wins).
    package mutating func write(_ node: ValueEncoder.Node) throws(NonFiniteNumber) {
        switch node {
        case .value(let value): try write(value)
        case .box(let box): try write(box.node)
        case .array(let elements):
            writeByte(UInt8(ascii: "["))
            for index in elements.indices {
                if index != 0 { writeByte(UInt8(ascii: ",")) }
                try write(elements[index])
            }
            writeByte(UInt8(ascii: "]"))
        case .object(let pairs):
            try writePairs(pairs)
        }
    }

    package mutating func writePairs(_ pairs: [ValueEncoder.Pair]) throws(NonFiniteNumber) {
        writeByte(UInt8(ascii: "{"))
        let count = pairs.count
        if count == 1 {
            writeKey(pairs[0].key)
            try write(pairs[0].value)
        } else if count > 1 {
            try withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { buffer throws(NonFiniteNumber) in
                let order = buffer
                // Stable by position, so among repeated keys the last one is found last.
                Self.sortSlots(order, by: { pairs[$0].key < pairs[$1].key })
                var first = true
                for slot in 0..<count {
                    let index = order[slot]
                    if slot + 1 < count && pairs[order[slot + 1]].key == pairs[index].key { continue }
                    if !first { writeByte(UInt8(ascii: ",")) }
                    first = false
                    writeKey(pairs[index].key)
                    try write(pairs[index].value)
                }
            }
        }
        writeByte(UInt8(ascii: "}"))
    }
}
