import Frontmail

/// Timers of one event loop, earliest first (the SDK's `DeadlineHeap`, unindexed: the loop never
/// removes a timer early, it checks the token when one fires).
struct TimerHeap {
    struct Entry {
        var deadline: Double
        var token: UInt64
        var kind: UInt8
    }

    private var heap = DeadlineHeap<Double, (token: UInt64, kind: UInt8)>(indexed: false)
    private var sequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var earliest: Double? { heap.earliest }

    mutating func schedule(at deadline: Double, token: UInt64, kind: UInt8) {
        sequence &+= 1
        heap.insert(id: sequence, deadline: deadline, value: (token, kind))
    }

    /// Removes and returns the earliest entry due at `now`.
    mutating func popDue(_ now: Double) -> Entry? {
        heap.popDue(now).map { Entry(deadline: $0.deadline, token: $0.value.token, kind: $0.value.kind) }
    }
}
