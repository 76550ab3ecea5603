import CAllocationCounter
import Foundation
import LoadKit

/// Exact allocation counts from jemalloc's hooks, when the package was built with jemalloc.
public enum Allocations {
    /// Whether counts are available (jemalloc linked and its hook installed).
    public static let available: Bool = frontmail_alloc_counter_start() == 1

    /// The one-line notice printed when counts are not available.
    public static let notice =
        "allocation counts: n/a (jemalloc not found at build time; install libjemalloc-dev and rebuild to measure them)"

    /// Allocations and bytes per call of `body`, averaged over `iterations` calls on this thread.
    /// With `processWide`, allocations count every thread (for bodies that hop to other threads;
    /// bytes are then not available).
    public static func perCall(iterations: Int, processWide: Bool = false, _ body: () -> Void) -> (
        allocations: Double, bytes: Double
    ) {
        guard available else { return (.nan, .nan) }
        body()
        let count = Double(iterations)
        if processWide {
            let allocations = frontmail_alloc_counter_process_allocations()
            for _ in 0..<iterations { body() }
            return (Double(frontmail_alloc_counter_process_allocations() - allocations) / count, .nan)
        }
        let allocations = frontmail_alloc_counter_thread_allocations()
        let bytes = frontmail_alloc_counter_thread_bytes()
        for _ in 0..<iterations { body() }
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

/// Warm-up, then batches until a minimum time and count; per-operation times in a log-linear
/// histogram; then an untimed pass for allocation counts.
public struct BenchRunner: Sendable {
    public var minimumSeconds: Double
    public var minimumOperations: UInt64
    public var allocationIterations: Int

    public init(minimumSeconds: Double = 1, minimumOperations: UInt64 = 200, allocationIterations: Int = 200) {
        self.minimumSeconds = minimumSeconds
        self.minimumOperations = minimumOperations
        self.allocationIterations = allocationIterations
    }

    public func measure(
        group: String, subject: String, bytesPerOperation: Int, processWide: Bool = false, _ body: () -> Void
    ) -> BenchResult {
        var result = BenchResult(group: group, subject: subject, bytesPerOperation: bytesPerOperation)
        let warmUntil = DispatchTime.now().uptimeNanoseconds + UInt64(minimumSeconds * 0.1 * 1e9)
        var batch: UInt64 = 1
        while DispatchTime.now().uptimeNanoseconds < warmUntil {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<batch { body() }
            // Batches of at least ~20 µs keep the clock's own cost out of the figures.
            if DispatchTime.now().uptimeNanoseconds - start < 20_000 { batch *= 2 }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        while elapsed < UInt64(minimumSeconds * 1e9) || result.operations < minimumOperations {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<batch { body() }
            let took = DispatchTime.now().uptimeNanoseconds - start
            result.time.record(took / batch, count: batch)
            result.operations += batch
            elapsed = DispatchTime.now().uptimeNanoseconds - started
        }
        result.seconds = Double(elapsed) / 1e9
        (result.allocations, result.allocatedBytes) = Allocations.perCall(
            iterations: allocationIterations, processWide: processWide, body)
        return result
    }
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

/// Ratio rows (`statistic` = `ratio_vs_<baseline>`, higher is better) with the target they must meet.
public struct RatioCheck: Sendable {
    public var group: String
    public var subject: String
    public var baseline: String
    public var ratio: Double
    public var target: Double

    public init(group: String, subject: String, baseline: String, ratio: Double, target: Double) {
        self.group = group
        self.subject = subject
        self.baseline = baseline
        self.ratio = ratio
        self.target = target
    }

    public var met: Bool { ratio >= target }

    public func row(benchmark: String) -> SummaryRow {
        SummaryRow(
            scenario: benchmark, probe: group, metric: subject, statistic: "ratio_vs_\(baseline)", value: ratio,
            unit: "x")
    }

    public var line: String {
        if ratio.isNaN { return "n/a    \(group): \(subject) against \(baseline) (not measured in this build)" }
        return String(
            format: "%@ %@: %@ is %.2fx %@ (target >= %.2gx)", met ? "MET   " : "MISSED", group, subject, ratio,
            baseline, target)
    }
}

/// Writes rows to `--out` (if given) and prints them with the ratio lines.
public func report(benchmark: String, rows: [SummaryRow], checks: [RatioCheck], out: String?) throws {
    let allRows = rows + checks.map { $0.row(benchmark: benchmark) }
    let csv = SummaryCSV.render(allRows, runID: RunID.make())
    if let out { try csv.write(toFile: out, atomically: true, encoding: .utf8) }
    print(csv, terminator: "")
    if !Allocations.available { print(Allocations.notice) }
    for check in checks { print(check.line) }
}

/// Parses a benchmark's arguments (`--quick`, `--out FILE`, `--help` and its own options); prints
/// `usage` for `--help` and exits 64 on bad arguments.
public func benchmarkArguments(tool: String, usage: String, options: Set<String> = []) -> Arguments {
    do {
        let parsed = try Arguments(
            Array(CommandLine.arguments.dropFirst()),
            spec: Arguments.Spec(options: options.union(["out"]), flags: ["quick", "help"]))
        if parsed.flag("help") {
            print(usage)
            exit(0)
        }
        return parsed
    } catch {
        FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
        exit(64)
    }
}
