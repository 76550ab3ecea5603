/// Timers ordered by deadline: an indexed binary min-heap, earliest first, first in first out among
/// equal deadlines, and any entry removable by its id. The SDK's timer (`TimerQueue`) and the fake
/// server's event loop both keep their timers in one.
// Inlinable, so a heap of another module's values is specialized there: unspecialized, its
// comparisons looked up generic metadata on every step (a fifth of a simulated run's time).
package struct DeadlineHeap<Deadline: Comparable, Value> {
    package struct Entry {
        package var deadline: Deadline
        package var id: UInt64
        package var value: Value
        @usableFromInline var sequence: UInt64

        @inlinable init(deadline: Deadline, id: UInt64, value: Value, sequence: UInt64) {
            self.deadline = deadline
            self.id = id
            self.value = value
            self.sequence = sequence
        }
    }

    @usableFromInline var entries: [Entry] = []
    /// Where each id sits in `entries`; kept only when entries can be removed by id.
    @usableFromInline var positions: [UInt64: Int] = [:]
    @usableFromInline let indexed: Bool
    @usableFromInline var sequence: UInt64 = 0

    /// `indexed: false` for a heap whose entries only ever leave through `popDue` (the fake
    /// server's event loop): no position table to keep up on every insert and pop.
    @inlinable package init(indexed: Bool = true) {
        self.indexed = indexed
    }

    @inlinable package var count: Int { entries.count }
    @inlinable package var isEmpty: Bool { entries.isEmpty }
    @inlinable package var earliest: Deadline? { entries.first?.deadline }
    /// Whether entry `id` is waiting (an indexed heap only).
    @inlinable package func contains(_ id: UInt64) -> Bool { positions[id] != nil }

    /// Adds an entry; an entry with the same id is replaced.
    @inlinable package mutating func insert(id: UInt64, deadline: Deadline, value: Value) {
        if indexed { remove(id) }
        sequence &+= 1
        entries.append(Entry(deadline: deadline, id: id, value: value, sequence: sequence))
        if indexed { positions[id] = entries.count - 1 }
        siftUp(entries.count - 1)
    }

    /// Removes the entry `id` and returns its value (nil when there is none).
    @discardableResult
    @inlinable package mutating func remove(_ id: UInt64) -> Value? {
        precondition(indexed, "DeadlineHeap(indexed: false) cannot remove by id")
        guard let index = positions.removeValue(forKey: id) else { return nil }
        return remove(at: index).value
    }

    /// Removes and returns the earliest entry if it is due at `now` (its deadline is not after it).
    @inlinable package mutating func popDue(_ now: Deadline) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        if indexed { positions[first.id] = nil }
        return remove(at: 0)
    }

    @inlinable mutating func remove(at index: Int) -> Entry {
        let removed = entries[index]
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            if indexed { positions[last.id] = index }
            siftDown(siftUp(index))
        }
        return removed
    }

    @inlinable func before(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (entries[a], entries[b])
        return x.deadline < y.deadline || (x.deadline == y.deadline && x.sequence < y.sequence)
    }

    @discardableResult
    @inlinable mutating func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(child, parent) else { break }
            swapEntries(child, parent)
            child = parent
        }
        return child
    }

    @inlinable mutating func siftDown(_ start: Int) {
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

    @inlinable mutating func swapEntries(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        guard indexed else { return }
        positions[entries[a].id] = a
        positions[entries[b].id] = b
    }
}
