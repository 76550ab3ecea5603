import BenchKit
import Synchronization
import Testing

/// A stand-in for jemalloc's counters: the workload and a "neighbour thread" bump them.
final class FakeCounter: Sendable {
    private let state = Mutex<(allocations: UInt64, bytes: UInt64)>((0, 0))

    func allocate(_ count: UInt64, bytes: UInt64 = 0) {
        state.withLock {
            $0.allocations += count
            $0.bytes += bytes
        }
    }

    func reading(bytes counted: Bool) -> Allocations.Reading {
        state.withLock { Allocations.Reading(allocations: $0.allocations, bytes: counted ? $0.bytes : nil) }
    }
}

@Suite("allocation counts: what the code allocates per call, not what the process did meanwhile")
struct AllocationCountTests {
    @Test("a burst on another thread during one batch does not move the count")
    func burstIgnored() async {
        let counter = FakeCounter()
        var calls = 0
        let result = await Allocations.perCall(
            iterations: 50, batches: 5, read: { counter.reading(bytes: true) },
            body: {
                calls += 1
                counter.allocate(22, bytes: 704)
                // a runtime cache grows once, in the middle of the third batch
                if calls == 1 + 2 * 50 + 25 { counter.allocate(37) }
            })
        #expect(calls == 1 + 5 * 50)
        #expect(result.allocations == 22)
        #expect(result.bytes == 32 * 22)
    }

    @Test("one more allocation in every call is counted (the regression the gate exists for)")
    func realAllocationCounted() async {
        let counter = FakeCounter()
        let result = await Allocations.perCall(
            iterations: 50, batches: 5, read: { counter.reading(bytes: false) }, body: { counter.allocate(23) })
        #expect(result.allocations == 23)
        #expect(result.bytes.isNaN)
    }

    @Test("work done in only some calls is averaged over the batch, not rounded away")
    func fractionalCount() async {
        let counter = FakeCounter()
        var calls = 0
        let result = await Allocations.perCall(
            iterations: 10, batches: 3, read: { counter.reading(bytes: false) },
            body: {
                calls += 1
                counter.allocate(calls % 10 == 0 ? 3 : 2)
            })
        #expect(result.allocations == 2.1)
    }
}
