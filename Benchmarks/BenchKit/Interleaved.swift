import Dispatch
import Foundation
import LoadKit

/// One workload of an interleaved measurement.
public struct Workload {
    public var name: String
    public var bytesPerOperation: Int
    /// Count allocations on every thread (for bodies that hop to other threads).
    public var processWide: Bool
    public var body: () async -> Void

    public init(
        _ name: String, bytesPerOperation: Int = 0, processWide: Bool = false, _ body: @escaping () async -> Void
    ) {
        self.name = name
        self.bytesPerOperation = bytesPerOperation
        self.processWide = processWide
        self.body = body
    }

    /// A positive control: the same work done `factor` times per operation on average (the extra
    /// fraction as whole extra calls, spread evenly), named `<name>_control`. Not a change to the
    /// code under test: the slowdown is known exactly, so a gate can be asked whether it sees it.
    public func slowed(by factor: Double) -> Workload {
        let body = self.body
        let extra = factor - 1
        var credit = 0.0
        return Workload(name + "_control", bytesPerOperation: bytesPerOperation, processWide: processWide) {
            await body()
            credit += extra
            while credit >= 1 {
                credit -= 1
                await body()
            }
        }
    }
}

/// Times several workloads side by side: k rounds, each of m slices, and in every slice each
/// workload runs one batch (the order rotating from slice to slice), so drift, a busy neighbour or a
/// frequency change hits all of them alike. A round's figure for a workload is the lower quartile
/// of its slices (a slice the scheduler interrupted is slower, never faster); a ratio is computed
/// per round and summarised as a `RatioEstimate` (median and spread of the rounds).
public struct InterleavedRunner: Sendable {
    public var rounds: Int
    public var slicesPerRound: Int
    /// A batch is sized to take about this long.
    public var sliceNanoseconds: UInt64
    public var allocationIterations: Int
    /// Monotonic nanoseconds (a test hands in a clock the workloads advance).
    public var clock: @Sendable () -> UInt64
    /// `GROUP/WORKLOAD` (`--profile`): `measure` runs only that workload, back to back for
    /// `profileSeconds`, and exits the process, so a profiler attached to it sees nothing else.
    public var profile: String?
    public var profileSeconds: Double = 20

    public init(
        rounds: Int, slicesPerRound: Int, sliceNanoseconds: UInt64, allocationIterations: Int,
        clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        self.rounds = max(1, rounds)
        self.slicesPerRound = max(1, slicesPerRound)
        self.sliceNanoseconds = max(1, sliceNanoseconds)
        self.allocationIterations = allocationIterations
        self.clock = clock
    }

    /// CI's quick run: 9 rounds of 10 slices of 1 ms per workload.
    public static let quick = InterleavedRunner(
        rounds: 9, slicesPerRound: 10, sliceNanoseconds: 1_000_000, allocationIterations: 50)
    /// The full run: 15 rounds of 24 slices of 2 ms per workload.
    public static let full = InterleavedRunner(
        rounds: 15, slicesPerRound: 24, sliceNanoseconds: 2_000_000, allocationIterations: 200)

    /// The operations per batch that make one batch last about a slice (at least 1).
    func batchSize(_ body: () async -> Void, isolation: isolated (any Actor)? = #isolation) async -> UInt64 {
        // Warm-up first, for at least a slice: a first call that pays a one-time cost (a table
        // built on first use, pages touched for the first time) must not size the batch. A first
        // call of a millisecond once left a workload at one operation per batch, measured 3.4x
        // slower than it runs, every batch interleaved with the other workloads.
        let warmUp = clock()
        repeat { await body() } while clock() &- warmUp < sliceNanoseconds
        var batch: UInt64 = 1
        // Sizing: double until a batch lasts a slice, then run a few more at that size.
        while true {
            let start = clock()
            for _ in 0..<batch { await body() }
            let took = clock() &- start
            if took >= sliceNanoseconds || batch >= 1 << 30 { break }
            batch *= took == 0 ? 16 : max(2, min(16, sliceNanoseconds / max(took, 1)))
        }
        for _ in 0..<3 {
            for _ in 0..<batch { await body() }
        }
        return batch
    }

    /// Runs on the caller's isolation, so the workloads' closures never cross to another one.
    public func measure(
        group: String, _ workloads: [Workload], isolation: isolated (any Actor)? = #isolation
    ) async -> InterleavedResult {
        if let profile { await runProfile(profile, group: group, workloads) }
        var batches: [UInt64] = []
        for workload in workloads { batches.append(await batchSize(workload.body)) }
        var results = workloads.map {
            BenchResult(group: group, subject: $0.name, bytesPerOperation: $0.bytesPerOperation)
        }
        var perRound = Array(repeating: [Double](), count: workloads.count)
        for _ in 0..<rounds {
            var samples = Array(repeating: [Double](), count: workloads.count)
            for slice in 0..<slicesPerRound {
                for step in 0..<workloads.count {
                    let index = (slice + step) % workloads.count
                    let batch = batches[index]
                    let body = workloads[index].body
                    let start = clock()
                    for _ in 0..<batch { await body() }
                    let took = clock() &- start
                    samples[index].append(Double(took) / Double(batch))
                    results[index].time.record(took / batch, count: batch)
                    results[index].operations += batch
                    results[index].seconds += Double(took) / 1e9
                }
            }
            for index in workloads.indices {
                perRound[index].append(Self.lowerQuartile(samples[index]))
            }
        }
        for index in workloads.indices {
            (results[index].allocations, results[index].allocatedBytes) = await Allocations.perCall(
                iterations: allocationIterations, processWide: workloads[index].processWide, workloads[index].body)
        }
        return InterleavedResult(group: group, results: results, nanosecondsPerRound: perRound)
    }

    /// Runs the named workload of this group alone until `profileSeconds` have passed, then exits
    /// (a group that does not hold it returns at once).
    private func runProfile(
        _ profile: String, group: String, _ workloads: [Workload], isolation: isolated (any Actor)? = #isolation
    ) async {
        let parts = profile.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] == group else { return }
        guard let workload = workloads.first(where: { $0.name == parts[1] }) else {
            FileHandle.standardError.write(
                Data(
                    "profile: no workload \(parts[1]) in \(group) (\(workloads.map(\.name).joined(separator: ", ")))\n"
                        .utf8))
            exit(64)
        }
        let start = clock()
        let limit = UInt64(profileSeconds * 1e9)
        var operations: UInt64 = 0
        while clock() &- start < limit {
            for _ in 0..<1000 { await workload.body() }
            operations += 1000
        }
        let seconds = Double(clock() &- start) / 1e9
        print(
            String(
                format: "profile %@: %llu operations in %.1f s, %.2f µs each", profile, operations, seconds,
                seconds / Double(operations) * 1e6))
        exit(0)
    }

    static func lowerQuartile(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[(sorted.count - 1) / 4]
    }
}

/// The figures of one interleaved measurement.
public struct InterleavedResult {
    public var group: String
    /// Absolute figures per workload, from every slice.
    public var results: [BenchResult]
    /// Nanoseconds per operation of each workload in each round.
    public var nanosecondsPerRound: [[Double]]

    public func result(_ name: String) -> BenchResult? { results.first { $0.subject == name } }

    /// How many times faster `subject` is than `baseline`, round by round (above 1: faster).
    public func ratio(_ subject: String, against baseline: String) -> RatioEstimate {
        guard let ours = results.firstIndex(where: { $0.subject == subject }),
            let theirs = results.firstIndex(where: { $0.subject == baseline })
        else { return RatioEstimate(rounds: []) }
        return RatioEstimate(
            rounds: zip(nanosecondsPerRound[ours], nanosecondsPerRound[theirs]).map { $1 / $0 })
    }
}
