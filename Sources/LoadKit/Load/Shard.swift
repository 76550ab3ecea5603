import FakeFrontmail
import Foundation

/// Segment `index` of `count` of a scenario's load (`run --shard i/N`, docs/distributed.md).
///
/// Sends are dealt round robin by their number in the unsharded run: shard i owns sends i, i + N,
/// i + 2N, … So an open loop's shards together start exactly the unsharded schedule (each keeps
/// the intended times of the sends it owns: no gap, no overlap), a closed loop's shards split its
/// senders and its send count, and send ids, bench ids and explicit keys stay those of the
/// unsharded run, unique across shards.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The most shards of one run.
    public static let maxCount = 1024
    /// The whole run in one process.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)
    /// The environment variable Kubernetes Indexed Jobs set in each pod.
    public static let indexVariable = "JOB_COMPLETION_INDEX"

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public init(index: Int, count: Int) throws(ParseError) {
        guard (1...Self.maxCount).contains(count) else {
            throw ParseError(description: "the shard count must be 1 to \(Self.maxCount), not \(count)")
        }
        guard (0..<count).contains(index) else {
            throw ParseError(description: "the shard index must be 0 to \(count - 1) for \(count) shards, not \(index)")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    /// `i/N`, or `env/N` for the index in `JOB_COMPLETION_INDEX`.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ParseError)
    {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]) else {
            throw ParseError(description: "--shard needs i/N (0-based index i of N shards) or env/N, not '\(text)'")
        }
        let index: Int
        if parts[0] == "env" {
            guard let value = environment[Self.indexVariable] else {
                throw ParseError(description: "--shard env/\(count) needs \(Self.indexVariable) in the environment")
            }
            guard let number = Int(value) else {
                throw ParseError(description: "\(Self.indexVariable) must be a whole number, not '\(value)'")
            }
            index = number
        } else {
            guard let number = Int(parts[0]) else {
                throw ParseError(description: "--shard needs i/N (0-based index i of N shards) or env/N, not '\(text)'")
            }
            index = number
        }
        try self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }
    public var isWhole: Bool { count == 1 }

    /// Whether send `number` of the unsharded run is this shard's.
    func owns(_ number: Int) -> Bool { number % count == index }

    /// The unsharded send number of this shard's `local`-th send (0-based).
    func global(_ local: Int) -> Int { local * count + index }

    /// This shard's part of `total` things dealt round robin (sends, senders, an in-flight cap).
    func share(of total: Int) -> Int { total / count + (index < total % count ? 1 : 0) }

    /// The message numbers of this shard's own server (in process).
    var numbering: MessageNumbering { MessageNumbering(stride: UInt32(count), offset: UInt32(index)) }
}

extension Scenario {
    /// Why this scenario cannot run as `shard` (nil: it can), naming the field. `sharedServer`: the
    /// shards reach one server over sockets (`--workers` starts it, `--server` names it).
    /// `measuredOnce`: a calibrated rate is measured once for all shards (`--workers` does).
    public func shardingProblem(_ shard: Shard, sharedServer: Bool, measuredOnce: Bool = false) -> String? {
        guard !shard.isWhole else { return nil }
        if cancellation != nil {
            return "\(name): a cancellation experiment runs in one process (the cancellation section); shard loads only"
        }
        if status != nil {
            return "\(name): its status reads are judged in one process (the status section); shard loads without one"
        }
        if load.calibratedRate != nil, !measuredOnce {
            return
                "\(name): load.rate is calibrated against one process's throughput; give every shard the same --rate (--workers measures it once and does)"
        }
        if clock == .virtual, let exact = exactMetricNames.first {
            return
                "\(name): its assertions read \(exact), which only a run on virtual time measures; shards run on the real clock"
        }
        if load.kind == .closed, load.concurrency < shard.count {
            return
                "\(name): load.concurrency \(load.concurrency) is below the \(shard.count) shards (each needs a sender)"
        }
        if let sends = load.sends, sends < shard.count {
            return "\(name): load.sends \(sends) is below the \(shard.count) shards (each needs a send)"
        }
        if load.kind == .open, load.maxInFlight < shard.count {
            return
                "\(name): load.maxInFlight \(load.maxInFlight) is below the \(shard.count) shards (each gets a share)"
        }
        guard !sharedServer else { return nil }
        if transport.servesOtherProcesses {
            return
                "\(name): a socket scenario's shards share one server: run it with --workers N, or give each shard --server URL of one `serve --scenario`"
        }
        if plan.capacity != nil {
            return
                "\(name): plan.capacity models one server's workers; shards in process would each get all of them (run it over sockets with --workers, which share one server)"
        }
        if client.explicitKeys != nil {
            return
                "\(name): client.explicitKeys shares keys between sends, which needs one idempotency store; shards in process each have their own (run it over sockets with --workers)"
        }
        return nil
    }
}

extension Scenario {
    /// The metrics its assertions (the full run's and the quick run's) read that only a virtual-time
    /// run measures (those the catalog declares `virtualOnly`: JitterProbe+Exact, BudgetReplay), in
    /// order.
    var exactMetricNames: [String] {
        var names: [String] = []
        for assertion in assertions + (quick?.assertions ?? []) {
            var read = [assertion.name]
            switch assertion.value {
            case .metric(let other), .scaled(_, let other): read.append(other)
            case .number: break
            }
            for name in read where MetricCatalog.entry(for: name)?.virtualOnly == true {
                if !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// The scenario with its open loop at a fixed `rate` (a calibrated rate replaced).
    package func withFixedRate(_ rate: Double) -> Scenario {
        var copy = self
        copy.load.rate = rate
        copy.load.calibratedRate = nil
        return copy
    }
}
