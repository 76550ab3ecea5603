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

extension JSONWriter {
    /// Fills `order` with `0..<order.count` sorted by `precedes` (stable: equal slots keep their
    /// order). Insertion sort for the few members of a typical object, heapsort above that: both in
    /// place, so the number of allocations never depends on the order the members came in (the
    /// library sort's merge buffer does, and a dictionary's order changes from process to process).
    @inline(__always)
    static func sortSlots(_ order: UnsafeMutableBufferPointer<Int>, by precedes: (Int, Int) -> Bool) {
        let count = order.count
        for slot in 0..<count { order.initializeElement(at: slot, to: slot) }
        if count > 16 {
            heapSort(order) { precedes($0, $1) || (!precedes($1, $0) && $0 < $1) }
            return
        }
        for next in 1..<max(count, 1) {
            let slot = order[next]
            var hole = next
            while hole > 0 && precedes(slot, order[hole - 1]) {
                order[hole] = order[hole - 1]
                hole -= 1
            }
            order[hole] = slot
        }
    }

    /// Sorts `items` by the strict total order `less`, in place.
    static func heapSort(_ items: UnsafeMutableBufferPointer<Int>, by less: (Int, Int) -> Bool) {
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end && less(items[child], items[child + 1]) { child += 1 }
                guard less(items[root], items[child]) else { return }
                items.swapAt(root, child)
                root = child
            }
        }
        let count = items.count
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            items.swapAt(0, end)
            siftDown(0, end)
        }
    }
}
