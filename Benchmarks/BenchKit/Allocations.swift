import CAllocationCounter
import Foundation
import LoadKit

/// Exact allocation counts from jemalloc's hooks, when jemalloc is this process's allocator (the
/// benchmarks' allocation pass preloads it; `AllocationPass`).
public enum Allocations {
    /// Whether counts are available (jemalloc is the allocator and its hook is installed).
    public static let available: Bool = frontmail_alloc_counter_start() == 1

    /// Allocations and bytes per call of `body`, averaged over `iterations` calls. Counted on this
    /// thread unless `processWide`, which a body that suspends needs (a resumed task may run on
    /// another thread); bytes are then not available.
    public static func perCall(
        iterations: Int, processWide: Bool = false, _ body: () async -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async -> (
        allocations: Double, bytes: Double
    ) {
        guard available else { return (.nan, .nan) }
        await body()
        let count = Double(iterations)
        if processWide {
            let allocations = frontmail_alloc_counter_process_allocations()
            for _ in 0..<iterations { await body() }
            return (Double(frontmail_alloc_counter_process_allocations() - allocations) / count, .nan)
        }
        let allocations = frontmail_alloc_counter_thread_allocations()
        let bytes = frontmail_alloc_counter_thread_bytes()
        for _ in 0..<iterations { await body() }
        return (
            Double(frontmail_alloc_counter_thread_allocations() - allocations) / count,
            Double(frontmail_alloc_counter_thread_bytes() - bytes) / count
        )
    }
}

/// Keeps a value alive so the optimiser cannot delete the work that made it.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
