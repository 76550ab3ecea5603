import Foundation

/// A shard's progress as one stdout line (`progress 1200 64 1130 rate_limited:3,timeout:1`:
/// sends scheduled, in flight, ok, errors by code), which the `--workers` parent adds up into one
/// line for the whole run.
package struct ShardProgress: Sendable, Hashable {
    var scheduled = 0
    var inFlight = 0
    var ok = 0
    var errors: [String: Int] = [:]

    static let prefix = "progress "

    var line: String {
        let codes = errors.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
        return Self.prefix + "\(scheduled) \(inFlight) \(ok) " + (codes.isEmpty ? "-" : codes)
    }

    /// Nil for any other line.
    init?(line: Substring) {
        guard line.hasPrefix(Self.prefix) else { return nil }
        let fields = line.dropFirst(Self.prefix.count).split(separator: " ")
        guard fields.count == 4, let scheduled = Self.count(fields[0]), let inFlight = Self.count(fields[1]),
            let ok = Self.count(fields[2])
        else { return nil }
        self.scheduled = scheduled
        self.inFlight = inFlight
        self.ok = ok
        if fields[3] != "-" {
            for entry in fields[3].split(separator: ",") {
                let pair = entry.split(separator: ":")
                guard pair.count == 2, let count = Self.count(pair[1]) else { return nil }
                errors[String(pair[0])] = count
            }
        }
    }

    /// The largest count a line may carry: far beyond any run (a load has at most 10^7 sends), and
    /// small enough that 64 workers' counts add up without overflow.
    static let maxCount = 1 << 40

    /// A count in `0...maxCount`; nil for anything else.
    private static func count(_ text: Substring) -> Int? {
        guard let value = Int(text), (0...maxCount).contains(value) else { return nil }
        return value
    }

    init(scheduled: Int, inFlight: Int, ok: Int, errors: [String: Int]) {
        self.scheduled = scheduled
        self.inFlight = inFlight
        self.ok = ok
        self.errors = errors
    }

    /// A shard's progress, written for its parent as a line on stdout.
    @Sendable static func write(_ snapshot: History.Snapshot) {
        ChildReply.progress(
            ShardProgress(
                scheduled: snapshot.scheduled, inFlight: snapshot.inFlight, ok: snapshot.ok, errors: snapshot.errors)
        ).send()
    }

    /// The sum over shards.
    static func total(_ shards: some Sequence<ShardProgress>) -> ShardProgress {
        var sum = ShardProgress(scheduled: 0, inFlight: 0, ok: 0, errors: [:])
        for shard in shards {
            sum.scheduled += shard.scheduled
            sum.inFlight += shard.inFlight
            sum.ok += shard.ok
            sum.errors.merge(shard.errors, uniquingKeysWith: +)
        }
        return sum
    }

    /// The run's one progress line: `name: 12s, 4 workers, 48000 sends (4000/s), …`.
    func render(scenario: String, elapsed: Double, workers: Int, running: Int, total: Int?) -> String {
        let done = scheduled - inFlight
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var eta = ""
        if let total, rate > 0 { eta = String(format: ", ETA %.0fs", Double(max(0, total - done)) / rate) }
        let top = errors.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key)=\($0.value)" }
        return String(
            format: "%@: %.0fs, %d/%d workers running, %d sends (%.0f/s), %d in flight, %d ok%@%@", scenario, elapsed,
            running, workers, done, rate, inFlight, ok, top.isEmpty ? "" : ", errors " + top.joined(separator: " "),
            eta)
    }
}
