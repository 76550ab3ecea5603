import FakeFrontmail
import Foundation
import LoadKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `run` splits a scenario over processes: `--shard i/N` runs one part and writes its raw
/// results, `--workers N` runs N of them as child processes and merges (docs/distributed.md).
struct ShardOptions {
    var shard: Shard?
    var workers: Int?
    var server: URL?
    /// The open loop's total rate, fixed for every shard (a calibrated rate is measured once).
    var rate: Double?

    static let maxWorkers = 64

    init(_ parsed: Arguments, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Arguments.UsageError)
    {
        if let text = parsed.value(.shard) {
            do {
                shard = try Shard(parsing: text, environment: environment)
            } catch {
                throw Arguments.UsageError(message: error.description)
            }
        }
        if let count = try parsed.integer(.workers) {
            guard (1...Self.maxWorkers).contains(count) else {
                throw Arguments.UsageError(message: "--workers needs 1 to \(Self.maxWorkers) processes, not \(count)")
            }
            workers = count
        }
        if let text = parsed.value(.server) {
            guard let url = URL(string: text), url.scheme == "http", url.host != nil else {
                throw Arguments.UsageError(message: "--server needs an http:// URL of a running `serve`, not '\(text)'")
            }
            server = url
        }
        if let given = try parsed.number(.rate, in: LoadSettings.rates) {
            guard shard != nil else {
                throw Arguments.UsageError(message: "--rate goes with --shard i/N (every shard of a run gets the same)")
            }
            rate = given
        }
        if shard != nil && workers != nil {
            throw Arguments.UsageError(
                message: "--shard and --workers exclude each other (--workers runs the shards itself)")
        }
        if server != nil && shard == nil {
            throw Arguments.UsageError(
                message: "--server goes with --shard i/N (the shards of a run share that server)")
        }
    }
}

extension RunCommand {
    /// `--shard i/N`: runs this shard of every scenario and writes `DIR/<scenario>.shard-i-of-N.fmshard`
    /// (no verdicts: `merge` judges the union).
    static func runShard(_ scenarios: [Scenario], options: ShardOptions, parsed: Arguments, out: URL) async -> ExitCode
    {
        guard let shard = options.shard else { return .usage }
        var scenarios = scenarios
        if let rate = options.rate {
            if let closed = scenarios.first(where: { $0.load.kind != .open }) {
                printError("run: --rate sets an open loop's rate; \(closed.name) is a closed loop")
                return .usage
            }
            scenarios = scenarios.map { $0.withFixedRate(rate) }
            // The file's checks again with the new rate: it may plan more sends than a run may hold.
            for scenario in scenarios {
                do throws(InputError) {
                    try scenario.validate()
                } catch {
                    printError("run: --rate \(SummaryCSV.format(rate)) in \(scenario.name): \(error)")
                    return .usage
                }
            }
        }
        for scenario in scenarios {
            if let problem = scenario.shardingProblem(shard, sharedServer: options.server != nil) {
                printError("run: \(problem)")
                return .usage
            }
        }
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        } catch {
            printError("run: --out \(out.path) cannot be written (\(error.localizedDescription))")
            return .software
        }
        var serverRunID: String?
        if let server = options.server {
            switch await ShardRun.serverIdentity(server) {
            case .success(let id): serverRunID = id
            case .failure(let problem):
                printError("run: --server \(problem)")
                return .software
            }
        }
        let lines = parsed.flag(.progressLines)
        let run = ShardRun(
            scenarios: scenarios, shard: shard, server: options.server, rate: options.rate, quick: parsed.flag(.quick),
            out: out, progress: !lines && !parsed.flag(.noProgress) && isatty(2) == 1, progressLines: lines,
            runID: parsed.value(.runID), serverRunID: serverRunID)
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: cancelling in-flight sends and writing the shard's partial results…"
        ) { try await run.run() }
        do {
            let interrupted = try outcome.get()
            return interrupted || cancelled ? .interrupted : .success
        } catch {
            printError("run: shard \(shard) could not run: \(error)")
            return .software
        }
    }

    /// `--workers N` (`WorkersRun.runAll`), then the run's ending.
    static func runWorkers(
        _ scenarios: [Scenario], workers: Int, parsed: Arguments, executable: String, out: URL, runID: String
    ) async -> ExitCode {
        let showProgress = !parsed.flag(.noProgress) && isatty(2) == 1
        let children = RunningChildren()
        let quick = parsed.flag(.quick)
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: every worker writes its partial results, then they are merged…",
            signalled: children.forward
        ) {
            await WorkersRun.runAll(
                scenarios, workers: workers, quick: quick, executable: executable, out: out, runID: runID,
                progress: showProgress, children: children)
        }
        let entries = (try? outcome.get()) ?? []
        let session = RunSession(
            command: "run", writer: ResultsWriter(root: out, runID: runID), outputs: outputs(parsed))
        return session.end(entries, planned: scenarios.count, cancelled: cancelled)
    }
}
