/// The state of the SDK's timer, as a value: what is waiting, until when, and which deadline the
/// one system timer is armed for. Each change returns what the owner must do (arm the system timer,
/// resume waiters); `SleepScheduler` holds it under a lock and does it.
package struct TimerQueue<Waiter> {
    /// Nanoseconds of `DispatchTime`'s uptime clock; `.max` is never.
    @usableFromInline var heap = DeadlineHeap<UInt64, Waiter>()
    /// Sleeps whose cancellation arrived before they were added (their Task was cancelled between
    /// taking an id and registering): adding one of these is refused.
    @usableFromInline var cancelledEarly: Set<UInt64> = []
    @usableFromInline var nextID: UInt64 = 0
    /// The deadline the system timer is armed for (`.max`: not armed).
    @usableFromInline package internal(set) var armed: UInt64 = .max

    @inlinable package init() {}

    /// Waiters that have not fired or been cancelled.
    @inlinable package var pending: Int { heap.count }

    /// The earliest deadline of a waiter (nil: nothing waits).
    @inlinable package var earliest: UInt64? { heap.earliest }

    @inlinable package mutating func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    /// Adds a waiter. Returns nil when `id` was cancelled before it got here (the waiter is not
    /// added: resume it as cancelled), else the deadline to arm the system timer for, when it must
    /// be armed earlier than it is.
    @inlinable package mutating func add(id: UInt64, deadline: UInt64, waiter: Waiter) -> (added: Bool, arm: UInt64?) {
        if cancelledEarly.remove(id) != nil { return (false, nil) }
        heap.insert(id: id, deadline: deadline, value: waiter)
        guard deadline < armed else { return (true, nil) }
        armed = deadline
        return (true, deadline)
    }

    /// Removes waiter `id` and returns it; nil when it has fired or is not added yet. With
    /// `rememberIfAbsent`, an id that is not there is refused when it is added later. The system
    /// timer stays armed: when it fires early, `popDue` re-arms it for what is left.
    @inlinable package mutating func cancel(id: UInt64, rememberIfAbsent: Bool) -> Waiter? {
        if let waiter = heap.remove(id) { return waiter }
        if rememberIfAbsent { cancelledEarly.insert(id) }
        return nil
    }

    /// Forgets an early cancellation of `id` that no registration consumed (the sleep ended
    /// another way), so the set does not grow.
    @inlinable package mutating func finished(id: UInt64) {
        if !cancelledEarly.isEmpty { cancelledEarly.remove(id) }
    }

    /// The system timer fired at `now`: removes and returns every waiter due, earliest first, and
    /// the deadline to arm it for next (nil: disarm).
    @inlinable package mutating func popDue(now: UInt64) -> (due: [Waiter], arm: UInt64?) {
        var due: [Waiter] = []
        while let entry = heap.popDue(now) { due.append(entry.value) }
        armed = heap.earliest ?? .max
        return (due, armed == .max ? nil : armed)
    }
}
