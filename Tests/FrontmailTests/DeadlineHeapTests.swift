import Testing

@testable import Frontmail

@Suite("the timers' heap and state")
struct DeadlineHeapTests {
    @Test("entries come out earliest first, equal deadlines in the order they went in")
    func order() {
        var heap = DeadlineHeap<Int, String>()
        let deadlines = [50, 10, 30, 10, 70, 20, 30, 10]
        for (id, deadline) in deadlines.enumerated() { heap.insert(id: UInt64(id), deadline: deadline, value: "\(id)") }
        #expect(heap.count == deadlines.count)
        #expect(heap.earliest == 10)
        #expect(heap.popDue(5) == nil)
        var out: [String] = []
        while let entry = heap.popDue(100) { out.append(entry.value) }
        #expect(out == ["1", "3", "7", "5", "2", "6", "0", "4"])
        #expect(heap.isEmpty)
    }

    @Test("any entry can be removed; what is left still comes out in order (random trials against a sorted list)")
    func removal() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var heap = DeadlineHeap<UInt64, UInt64>()
            var model: [(deadline: UInt64, id: UInt64)] = []
            for id in UInt64(0)..<UInt64(40) {
                let deadline = generator.next() % 16
                heap.insert(id: id, deadline: deadline, value: id)
                model.append((deadline, id))
            }
            for _ in 0..<15 {
                let victim = model.remove(at: Int(generator.next() % UInt64(model.count)))
                #expect(heap.remove(victim.id) == victim.id)
                #expect(heap.remove(victim.id) == nil)
                #expect(!heap.contains(victim.id))
            }
            let expected = model.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }.map(\.id)
            var out: [UInt64] = []
            while let entry = heap.popDue(.max) { out.append(entry.id) }
            #expect(out == expected)
        }
    }

    @Test("an unindexed heap pops what an indexed one pops, in the same order (random trials)")
    func unindexedSameOrder() {
        var generator = SplitMix64(seed: 5)
        for _ in 0..<100 {
            var indexed = DeadlineHeap<UInt64, UInt64>()
            var plain = DeadlineHeap<UInt64, UInt64>(indexed: false)
            var popped: ([UInt64], [UInt64]) = ([], [])
            for id in UInt64(0)..<UInt64(60) {
                let deadline = generator.next() % 10
                indexed.insert(id: id, deadline: deadline, value: id)
                plain.insert(id: id, deadline: deadline, value: id)
                if id % 7 == 6 {
                    let now = generator.next() % 10
                    while let entry = indexed.popDue(now) { popped.0.append(entry.id) }
                    while let entry = plain.popDue(now) { popped.1.append(entry.id) }
                }
            }
            while let entry = indexed.popDue(.max) { popped.0.append(entry.id) }
            while let entry = plain.popDue(.max) { popped.1.append(entry.id) }
            #expect(popped.0 == popped.1)
            #expect(popped.1.count == 60)
        }
    }

    @Test("re-inserting an id replaces its entry")
    func replace() {
        var heap = DeadlineHeap<Int, Int>()
        heap.insert(id: 1, deadline: 5, value: 1)
        heap.insert(id: 1, deadline: 9, value: 2)
        #expect(heap.count == 1)
        #expect(heap.popDue(6) == nil)
        #expect(heap.popDue(9)?.value == 2)
    }

    @Test("the queue arms the system timer only when the earliest deadline moves earlier")
    func arming() {
        var queue = TimerQueue<String>()
        let a = queue.makeID()
        let b = queue.makeID()
        let c = queue.makeID()
        #expect(queue.add(id: a, deadline: 100, waiter: "a") == (true, 100))
        #expect(queue.add(id: b, deadline: 200, waiter: "b") == (true, nil))
        #expect(queue.add(id: c, deadline: 50, waiter: "c") == (true, 50))
        // a cancelled entry leaves the timer armed; when it fires early, it re-arms for what is left
        #expect(queue.cancel(id: c, rememberIfAbsent: false) == "c")
        #expect(queue.armed == 50)
        let early = queue.popDue(now: 50)
        #expect(early.due.isEmpty)
        #expect(early.arm == 100)
        let late = queue.popDue(now: 250)
        #expect(late.due == ["a", "b"])
        #expect(late.arm == nil)
        #expect(queue.armed == .max)
        #expect(queue.pending == 0)
    }

    @Test("a sleep cancelled before it registers is refused when it does, and the memory of it is let go")
    func cancelledEarly() {
        var queue = TimerQueue<String>()
        let id = queue.makeID()
        #expect(queue.cancel(id: id, rememberIfAbsent: true) == nil)
        #expect(queue.add(id: id, deadline: 10, waiter: "late").added == false)
        #expect(queue.pending == 0)
        // a cancellation that came after the sleep fired is forgotten when the sleep ends
        let other = queue.makeID()
        _ = queue.add(id: other, deadline: 10, waiter: "x")
        #expect(queue.popDue(now: 10).due == ["x"])
        #expect(queue.cancel(id: other, rememberIfAbsent: true) == nil)
        queue.finished(id: other)
        #expect(queue.add(id: other, deadline: 20, waiter: "again").added)
        // a deadline's cancellation is not remembered: it has fired or it is gone
        let deadline = queue.makeID()
        #expect(queue.cancel(id: deadline, rememberIfAbsent: false) == nil)
        #expect(queue.add(id: deadline, deadline: 30, waiter: "d").added)
    }
}
