import FakeFrontmail
import Foundation
import Synchronization

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
        if let text = parsed.value("shard") {
            do {
                shard = try Shard(parsing: text, environment: environment)
            } catch {
                throw Arguments.UsageError(message: error.description)
            }
        }
        if let count = try parsed.integer("workers") {
            guard (1...Self.maxWorkers).contains(count) else {
                throw Arguments.UsageError(message: "--workers needs 1 to \(Self.maxWorkers) processes, not \(count)")
            }
            workers = count
        }
        if let text = parsed.value("server") {
            guard let url = URL(string: text), url.scheme == "http", url.host != nil else {
                throw Arguments.UsageError(message: "--server needs an http:// URL of a running `serve`, not '\(text)'")
            }
            server = url
        }
        if let given = try parsed.number("rate", in: LoadSettings.rates) {
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
            return .usage
        }
        let quick = parsed.flag("quick")
        let lines = parsed.flag("progress-lines")
        let showProgress = !lines && !parsed.flag("no-progress") && isatty(2) == 1
        let work = Task { () -> Bool in
            var interrupted = false
            for scenario in scenarios {
                if Task.isCancelled { break }
                var experiment = LoadExperiment(scenario: scenario, progress: showProgress)
                experiment.progressLines = lines
                let observed = try await experiment.observe(scenario, shard: shard, server: options.server)
                var part = try ShardPart(
                    observed, scenario: scenario, quick: quick, shard: shard, sharedServer: options.server != nil)
                part.header.rate = options.rate
                let file = out.appendingPathComponent(
                    ShardPart.fileName(scenario: scenario.name, role: .shard, shard: shard))
                try part.write(to: file)
                interrupted = interrupted || observed.interrupted
                printError(
                    String(
                        format: "  shard %@ of %@: %d sends in %.1f s%@", shard.description, scenario.name,
                        part.records.count, observed.elapsed, observed.interrupted ? " (interrupted)" : ""))
                print("part: \(file.path)")
            }
            return interrupted
        }
        let interruption = InterruptHandler { _ in
            printError("\ninterrupted: cancelling in-flight sends and writing the shard's partial results…")
            work.cancel()
        }
        defer { interruption.stop() }
        do {
            let interrupted = try await work.value
            return interrupted || work.isCancelled ? .interrupted : .success
        } catch {
            printError("run: shard \(shard) could not run: \(error)")
            return .software
        }
    }

    /// `--workers N`: per scenario, N child processes run one shard each (a socket scenario's
    /// children share a server this process runs), then the parts are merged and judged here, and
    /// the run is written as any run is. A scenario that cannot be sharded runs whole, here.
    static func runWorkers(
        _ scenarios: [Scenario], workers: Int, parsed: Arguments, executable: String, out: URL, runID: String
    ) async -> ExitCode {
        let showProgress = !parsed.flag("no-progress") && isatty(2) == 1
        let children = RunningChildren()
        let work = Task { () -> ([ScenarioResult], [String: String]) in
            var results: [ScenarioResult] = []
            var errors: [String: String] = [:]
            let runner = ScenarioRunner(outputFolder: out, runID: runID, progress: false)
            for (index, scenario) in scenarios.enumerated() {
                if Task.isCancelled { break }
                // What cannot be sharded (a cancellation experiment, a capacity model in process, …)
                // runs whole in this process, and says why.
                let shard = Shard(uncheckedIndex: 0, count: workers)
                if let problem = scenario.shardingProblem(
                    shard, sharedServer: scenario.transport == .socket, measuredOnce: true)
                {
                    printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
                    printError("  not sharded, runs in one process: \(problem)")
                    do {
                        var whole = runner
                        whole.progress = showProgress
                        let result = try await whole.run(scenario)
                        printError("  \(result.verdictLine) in \(String(format: "%.1f", result.elapsed)) s")
                        results.append(result)
                    } catch {
                        printError("  ERROR \(scenario.name): \(error)")
                        errors[scenario.name] = "\(error)"
                    }
                    continue
                }
                printError(
                    "[\(index + 1)/\(scenarios.count)] \(scenario.name) on \(workers) workers: \(scenario.description)")
                let run = WorkersRun(
                    scenario: scenario, workers: workers, parsed: parsed, executable: executable,
                    folder: ResultsWriter(root: out, runID: runID).folder(of: scenario.name).appendingPathComponent(
                        "shards"), progress: showProgress, children: children)
                do {
                    let merged = try await run.run()
                    let result = try runner.finish(scenario, merged)
                    printError("  \(result.verdictLine) in \(String(format: "%.1f", result.elapsed)) s")
                    results.append(result)
                } catch {
                    printError("  ERROR \(scenario.name): \(error)")
                    errors[scenario.name] = "\(error)"
                }
            }
            return (results, errors)
        }
        let interruption = InterruptHandler { name in
            printError("\ninterrupted: every worker writes its partial results, then they are merged…")
            work.cancel()
            children.forward(name == "SIGINT" ? SIGINT : SIGTERM)
        }
        defer { interruption.stop() }
        let (results, errors) = await work.value
        let writer = ResultsWriter(root: out, runID: runID)
        guard let combined = writeRun(results.flatMap(\.rows), writer) else { return .software }
        for result in results { print(result.verdictLine) }
        for (name, error) in errors.sorted(by: { $0.key < $1.key }) { print("FAIL \(name): \(error)") }
        let order = scenarios.map(\.name).filter { name in
            results.contains { $0.scenario.name == name } || errors[name] != nil
        }
        guard writeOutputs(parsed, combined, order: order, errors: errors) else { return .software }
        print("results: \(combined.path)")
        if work.isCancelled || results.contains(where: \.interrupted) || order.count < scenarios.count {
            return .interrupted
        }
        return errors.isEmpty && results.allSatisfy(\.passed) ? .success : .failure
    }
}

/// One scenario on N worker processes: starts them (and the shared server of a socket scenario),
/// adds their progress up into one line, waits, and merges what they wrote.
struct WorkersRun {
    let scenario: Scenario
    let workers: Int
    let parsed: Arguments
    let executable: String
    let folder: URL
    let progress: Bool
    let children: RunningChildren

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func run() async throws -> Measurement {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A calibrated rate is measured once, here, and every worker gets its share of the total.
        let (scenario, calibration) = try await LoadExperiment.calibrate(
            scenario, processes: workers, progress: progress)
        var server: (core: FakeFrontmailCore, server: FakeFrontmailServer)?
        if scenario.transport == .socket {
            let core = FakeFrontmailCore(
                config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed,
                seriesWidth: scenario.timeScale)
            var options = FakeFrontmailServer.Options()
            options.pathPrefix = "/fm-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            server = (core, try FakeFrontmailServer(core: core, options: options))
        }
        defer { server?.server.shutdown() }
        let board = ProgressBoard(workers: workers)
        let started = Date()
        let ended = await withTaskGroup(of: (Int, Int32, Int).self) { group -> [Int: (status: Int32, peak: Int)] in
            for index in 0..<workers {
                var arguments = [
                    "run", scenario.file, "--only", scenario.name, "--shard", "\(index)/\(workers)", "--out",
                    folder.path, "--no-progress", "--progress-lines", "--seed", String(scenario.seed),
                ]
                if parsed.flag("quick") { arguments.append("--quick") }
                if let server { arguments += ["--server", server.server.url.absoluteString] }
                if !calibration.rows.isEmpty { arguments += ["--rate", String(scenario.load.rate)] }
                group.addTask {
                    let (status, peak) = await Self.runChild(executable, arguments, children: children) { line in
                        if let snapshot = ShardProgress(line: line) { board.update(index, snapshot) }
                    }
                    board.ended(index)
                    return (index, status, peak)
                }
            }
            if progress {
                group.addTask {
                    while !Task.isCancelled, board.running > 0 {
                        try? await Task.sleep(nanoseconds: 1_000_000_000)
                        board.draw(scenario: scenario, elapsed: Date().timeIntervalSince(started))
                    }
                    return (-1, 0, 0)
                }
            }
            var ended: [Int: (status: Int32, peak: Int)] = [:]
            for await (index, status, peak) in group where index >= 0 { ended[index] = (status, peak) }
            return ended
        }
        let statuses = ended.mapValues(\.status)
        // Every process's peak resident memory added up: a bound on what the run held at once.
        let peakBytes = ended.values.reduce(ChildProcess.ownPeakBytes()) { $0 + $1.peak }
        if progress { board.clear() }
        let failed = statuses.filter { $0.value != 0 && $0.value != ExitCode.interrupted.rawValue }.sorted {
            $0.key < $1.key
        }
        var parts: [(file: String, part: ShardPart)] = []
        for index in 0..<workers {
            let file = folder.appendingPathComponent(
                ShardPart.fileName(
                    scenario: scenario.name, role: .shard, shard: Shard(uncheckedIndex: index, count: workers))
            ).path
            guard FileManager.default.fileExists(atPath: file) else {
                let exit = failed.first { $0.key == index }.map { " (it exited \($0.value))" } ?? ""
                throw Failure(description: "worker \(index)/\(workers) wrote no results\(exit)")
            }
            parts.append((file, try ShardPart.read(file)))
        }
        if let (index, status) = failed.first {
            throw Failure(description: "worker \(index)/\(workers) exited \(status)")
        }
        if let server {
            server.server.shutdown()
            let part = try ShardPart(
                server: server.core, scenario: scenario, quick: parsed.flag("quick"), shards: workers,
                interrupted: parts.contains { $0.part.header.interrupted })
            let file = folder.appendingPathComponent(
                ShardPart.fileName(scenario: scenario.name, role: .server, shard: .whole))
            try part.write(to: file)
            parts.append((file.path, part))
        }
        let (shards, serverPart) = try ShardMerge.check(parts)
        let observed = ShardMerge.observation(shards: shards, server: serverPart, bucketWidth: scenario.timeScale)
        var measurement = Measurement.judging(scenario, observed)
        measurement.addShardRows(scenario: scenario.name, shards: workers, peakBytes: peakBytes)
        measurement.rows = calibration.rows + measurement.rows
        for row in calibration.rows { measurement.metrics[row.key] = row.value }
        return measurement
    }

    /// Runs a worker; hands each stdout line to `line` as it comes; returns the exit status and the
    /// worker's peak resident memory in bytes.
    static func runChild(
        _ executable: String, _ arguments: [String], children: RunningChildren,
        line: @escaping @Sendable (Substring) -> Void
    ) async -> (Int32, Int) {
        await withCheckedContinuation { continuation in
            guard let (pid, output) = ChildProcess.spawn(executable, arguments) else {
                continuation.resume(returning: (-1, 0))
                return
            }
            children.started(pid)
            Thread.detachNewThread {
                let handle = FileHandle(fileDescriptor: output, closeOnDealloc: true)
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        line(Substring(text))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                let (status, peak) = ChildProcess.waitWithPeak(pid)
                children.ended(pid)
                continuation.resume(returning: (status, peak))
            }
        }
    }
}

/// The workers' latest progress, drawn as one line on stderr.
final class ProgressBoard: Sendable {
    private struct State {
        var shards: [ShardProgress]
        var running: Int
        var lastLength = 0
    }

    private let state: Mutex<State>
    let workers: Int

    init(workers: Int) {
        self.workers = workers
        state = Mutex(
            State(
                shards: Array(repeating: ShardProgress(scheduled: 0, inFlight: 0, ok: 0, errors: [:]), count: workers),
                running: workers))
    }

    var running: Int { state.withLock { $0.running } }

    func update(_ index: Int, _ progress: ShardProgress) { state.withLock { $0.shards[index] = progress } }

    func ended(_ index: Int) { state.withLock { $0.running -= 1 } }

    var total: ShardProgress { state.withLock { ShardProgress.total($0.shards) } }

    func draw(scenario: Scenario, elapsed: Double) {
        let line = state.withLock { state -> String in
            let text = ShardProgress.total(state.shards).render(
                scenario: scenario.name, elapsed: elapsed, workers: workers, running: state.running,
                total: scenario.load.sends)
            defer { state.lastLength = text.count }
            return text + String(repeating: " ", count: max(0, state.lastLength - text.count))
        }
        FileHandle.standardError.write(Data(("\r" + line).utf8))
    }

    func clear() {
        let length = state.withLock { $0.lastLength }
        if length > 0 {
            FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: length) + "\r").utf8))
        }
    }
}

/// The worker processes running now, so that a signal to the run reaches every one of them (each
/// runs in its own process group), also one that starts after the signal.
final class RunningChildren: Sendable {
    private struct State {
        var pids: Set<Int32> = []
        var signal: Int32?
    }

    private let state = Mutex(State())

    func started(_ pid: Int32) {
        if let signal = state.withLock({ state -> Int32? in
            state.pids.insert(pid)
            return state.signal
        }) {
            kill(pid, signal)
        }
    }

    func ended(_ pid: Int32) { _ = state.withLock { $0.pids.remove(pid) } }

    func forward(_ signal: Int32) {
        let pids = state.withLock { state -> Set<Int32> in
            state.signal = signal
            return state.pids
        }
        for pid in pids { kill(pid, signal) }
    }
}

extension Measurement {
    /// `run.shards`: how many processes the merged run had; with `--workers`, `run.peak_memory`:
    /// the peak resident memory of every process added up (MB), and per million sends.
    mutating func addShardRows(scenario: String, shards: Int, peakBytes: Int? = nil) {
        var builder = SummaryBuilder(scenario: scenario)
        builder.add("run", "shards", "value", Double(shards), "processes")
        metrics["run.shards"] = Double(shards)
        if let peakBytes {
            let megabytes = Double(peakBytes) / 1_048_576
            builder.add("run", "peak_memory", "value", megabytes, "MB")
            metrics["run.peak_memory"] = megabytes
            let sends = history.map { Double($0.records.count) } ?? 0
            if sends > 0 {
                builder.add("run", "peak_memory", "per_million_sends", megabytes / sends * 1e6, "MB")
                metrics["run.peak_memory.per_million_sends"] = megabytes / sends * 1e6
            }
        }
        rows += builder.rows
    }
}
