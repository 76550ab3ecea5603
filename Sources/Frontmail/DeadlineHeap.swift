/// Timers ordered by deadline: an indexed binary min-heap, earliest first, first in first out among
/// equal deadlines, and any entry removable by its id. The SDK's timer (`TimerQueue`) and the fake
/// server's event loop both keep their timers in one.
package struct DeadlineHeap<Deadline: Comparable, Value> {
    package struct Entry {
        package var deadline: Deadline
        package var id: UInt64
        package var value: Value
        fileprivate var sequence: UInt64
    }

    private var entries: [Entry] = []
    /// Where each id sits in `entries`; kept only when entries can be removed by id.
    private var positions: [UInt64: Int] = [:]
    private let indexed: Bool
    private var sequence: UInt64 = 0

    /// `indexed: false` for a heap whose entries only ever leave through `popDue` (the fake
    /// server's event loop): no position table to keep up on every insert and pop.
    package init(indexed: Bool = true) {
        self.indexed = indexed
    }

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }
    package var earliest: Deadline? { entries.first?.deadline }
    /// Whether entry `id` is waiting (an indexed heap only).
    package func contains(_ id: UInt64) -> Bool { positions[id] != nil }

    /// Adds an entry; an entry with the same id is replaced.
    package mutating func insert(id: UInt64, deadline: Deadline, value: Value) {
        if indexed { remove(id) }
        sequence &+= 1
        entries.append(Entry(deadline: deadline, id: id, value: value, sequence: sequence))
        if indexed { positions[id] = entries.count - 1 }
        siftUp(entries.count - 1)
    }

    /// Removes the entry `id` and returns its value (nil when there is none).
    @discardableResult
    package mutating func remove(_ id: UInt64) -> Value? {
        precondition(indexed, "DeadlineHeap(indexed: false) cannot remove by id")
        guard let index = positions.removeValue(forKey: id) else { return nil }
        return remove(at: index).value
    }

    /// Removes and returns the earliest entry if it is due at `now` (its deadline is not after it).
    package mutating func popDue(_ now: Deadline) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        if indexed { positions[first.id] = nil }
        return remove(at: 0)
    }

    private mutating func remove(at index: Int) -> Entry {
        let removed = entries[index]
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            if indexed { positions[last.id] = index }
            siftDown(siftUp(index))
        }
        return removed
    }

    private func before(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (entries[a], entries[b])
        return x.deadline < y.deadline || (x.deadline == y.deadline && x.sequence < y.sequence)
    }

    @discardableResult
    private mutating func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(child, parent) else { break }
            swapEntries(child, parent)
            child = parent
        }
        return child
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && before(left, smallest) { smallest = left }
            if right < entries.count && before(right, smallest) { smallest = right }
            guard smallest != parent else { return }
            swapEntries(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swapEntries(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        guard indexed else { return }
        positions[entries[a].id] = a
        positions[entries[b].id] = b
    }
}
