import Foundation

/// What a parent `frontmail-bench run` asks of a child it starts: the one place that spells the
/// child's command line, so no caller builds an argument array by hand.
enum ChildRequest: Sendable, Equatable {
    /// One scenario of an isolated run, judged in the child and written into the parent's run.
    case scenario(
        file: String, name: String, out: String, runID: String, quick: Bool, seed: String?, schedule: String?,
        broken: String? = nil, progress: Bool)
    /// One shard of a `--workers` run: its raw results as a `.fmshard` in `out`, progress on stdout.
    case shard(
        file: String, name: String, shard: Shard, out: String, seed: UInt64, quick: Bool, server: URL?, rate: Double?,
        runID: String)

    /// The child's arguments (after the executable).
    var arguments: [String] {
        switch self {
        case .scenario(
            let file, let name, let out, let runID, let quick, let seed, let schedule, let broken, let progress):
            var arguments = ["run", file] + Self.pairs([(.only, name), (.out, out), (.runID, runID)])
            if quick { arguments.append(RunOption.quick.spelled) }
            if let seed { arguments += Self.pairs([(.seed, seed)]) }
            if let schedule { arguments += Self.pairs([(.schedule, schedule)]) }
            if let broken { arguments += Self.pairs([(.broken, broken)]) }
            if !progress { arguments.append(RunOption.noProgress.spelled) }
            return arguments
        case .shard(let file, let name, let shard, let out, let seed, let quick, let server, let rate, let runID):
            var arguments =
                ["run", file] + Self.pairs([(.only, name), (.shard, shard.description), (.out, out)])
                + [RunOption.noProgress.spelled, RunOption.progressLines.spelled]
                + Self.pairs([(.seed, String(seed)), (.runID, runID)])
            if quick { arguments.append(RunOption.quick.spelled) }
            if let server { arguments += Self.pairs([(.server, server.absoluteString)]) }
            if let rate { arguments += Self.pairs([(.rate, String(rate))]) }
            return arguments
        }
    }

    /// `--option value` for each pair, in order.
    private static func pairs(_ pairs: [(RunOption, String)]) -> [String] {
        pairs.flatMap { [$0.0.spelled, $0.1] }
    }
}

/// What a parent says to its children in their environment.
package enum ChildEnvironment {
    /// The run id the parent claimed for a scenario child's `--run-id`: the child writes into that
    /// run, where a `--run-id` of the user's own must name a run that does not exist yet.
    package static let claimedRun = "FRONTMAIL_BENCH_CLAIMED_RUN"
}

/// A line a child writes on stdout for its parent (everything else on its stdout is for people):
/// the one place that spells and reads those lines.
package enum ChildReply: Sendable, Equatable {
    /// A scenario's verdict: the `PASS …`, `FAIL …` or `INTERRUPTED …` line.
    case verdict(String)
    /// A shard's progress so far.
    case progress(ShardProgress)
    /// The path of the `.fmshard` a shard wrote.
    case part(String)

    static let verdictPrefixes = ["PASS ", "FAIL ", "INTERRUPTED "]
    static let partPrefix = "part: "

    /// Nil for a line that is none of these.
    init?(line: Substring) {
        if let progress = ShardProgress(line: line) {
            self = .progress(progress)
        } else if line.hasPrefix(Self.partPrefix) {
            self = .part(String(line.dropFirst(Self.partPrefix.count)))
        } else if Self.verdictPrefixes.contains(where: { line.hasPrefix($0) }) {
            self = .verdict(String(line))
        } else {
            return nil
        }
    }

    var line: String {
        switch self {
        case .verdict(let line): return line
        case .progress(let progress): return progress.line
        case .part(let path): return Self.partPrefix + path
        }
    }

    /// Writes the line on this process's stdout, for the parent.
    package func send() { StandardStream.output(line + "\n") }
}
