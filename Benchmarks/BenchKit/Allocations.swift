import CAllocationCounter
import Foundation
import LoadKit

/// Exact allocation counts from jemalloc's hooks, when jemalloc is this process's allocator (the
/// benchmarks' allocation pass preloads it; `AllocationPass`).
public enum Allocations {
    /// Whether counts are available (jemalloc is the allocator and its hook is installed).
    public static let available: Bool = frontmail_alloc_counter_start() == 1

    /// How many batches a count is taken over: the smallest batch is the figure.
    public static let batches = 5

    /// A reading of the allocation counters: allocations, and bytes when they are counted.
    public struct Reading: Sendable {
        public var allocations: UInt64
        public var bytes: UInt64?

        public init(allocations: UInt64, bytes: UInt64?) {
            self.allocations = allocations
            self.bytes = bytes
        }
    }

    /// Allocations and bytes per call of `body`. Counted on this thread unless `processWide`,
    /// which a body that suspends needs (a resumed task may run on another thread); bytes are then
    /// not available.
    public static func perCall(
        iterations: Int, processWide: Bool = false, _ body: () async -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async -> (allocations: Double, bytes: Double) {
        guard available else { return (.nan, .nan) }
        let read: () -> Reading =
            processWide
            ? { Reading(allocations: frontmail_alloc_counter_process_allocations(), bytes: nil) }
            : {
                Reading(
                    allocations: frontmail_alloc_counter_thread_allocations(),
                    bytes: frontmail_alloc_counter_thread_bytes())
            }
        return await perCall(iterations: iterations, batches: batches, read: read, body: body)
    }

    /// The per-call figures of the batch that allocated least, after one warm-up call. Every call
    /// of `body` makes its own allocations; what another thread allocates meanwhile (a runtime cache
    /// growing, a worker thread starting) only ever adds to one batch, so the smallest batch is the
    /// count of the code under test, and the figure a gate can hold to zero tolerance.
    public static func perCall(
        iterations: Int, batches: Int, read: () -> Reading, body: () async -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async -> (allocations: Double, bytes: Double) {
        await body()
        let count = Double(max(iterations, 1))
        var best: (allocations: Double, bytes: Double)?
        for _ in 0..<max(batches, 1) {
            let before = read()
            for _ in 0..<max(iterations, 1) { await body() }
            let after = read()
            let allocations = Double(after.allocations &- before.allocations) / count
            let bytes = after.bytes.flatMap { end in before.bytes.map { Double(end &- $0) / count } } ?? .nan
            if best == nil || allocations < best!.allocations { best = (allocations, bytes) }
        }
        return best!
    }
}

/// Keeps a value alive so the optimiser cannot delete the work that made it.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
