import Foundation

/// Timers of one event loop, earliest first.
struct TimerHeap {
    struct Entry {
        var deadline: Double
        var sequence: UInt64
        var token: UInt64
        var kind: UInt8
    }

    private var entries: [Entry] = []
    private var sequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var earliest: Double? { entries.first?.deadline }

    mutating func schedule(at deadline: Double, token: UInt64, kind: UInt8) {
        sequence += 1
        entries.append(Entry(deadline: deadline, sequence: sequence, token: token, kind: kind))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry due at `now`.
    mutating func popDue(_ now: Double) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count && Self.before(entries[left], entries[smallest]) { smallest = left }
                if right < entries.count && Self.before(entries[right], entries[smallest]) { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence)
    }
}
