import LoadKit

/// One measured subject.
public struct BenchResult: Sendable {
    public var group: String
    public var subject: String
    /// Nanoseconds per operation.
    public var time = Histogram()
    public var operations: UInt64 = 0
    public var seconds: Double = 0
    /// Bytes each operation produces (for MB/s).
    public var bytesPerOperation: Int
    public var allocations: Double = .nan
    public var allocatedBytes: Double = .nan

    public var operationsPerSecond: Double { seconds > 0 ? Double(operations) / seconds : .nan }
    public var megabytesPerSecond: Double { operationsPerSecond * Double(bytesPerOperation) / 1e6 }
}

extension BenchResult {
    /// Summary rows: `scenario` = the benchmark, `probe` = the group, `metric` = the subject.
    public func rows(benchmark: String) -> [SummaryRow] {
        var builder = SummaryBuilder(scenario: benchmark)
        builder.add(group, subject, "ops_per_s", operationsPerSecond, "ops/s")
        builder.add(group, subject, "mb_per_s", megabytesPerSecond, "MB/s")
        builder.add(group, subject, "p50_us", time.value(at: 0.5) / 1e3, "us")
        builder.add(group, subject, "p99_us", time.value(at: 0.99) / 1e3, "us")
        builder.add(group, subject, "allocs_per_op", allocations, "allocations")
        builder.add(group, subject, "alloc_bytes_per_op", allocatedBytes, "bytes")
        builder.add(group, subject, "output_bytes", Double(bytesPerOperation), "bytes")
        return builder.rows
    }
}
