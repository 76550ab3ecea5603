import FakeFrontmail
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One scenario on N worker processes: starts them (and the shared server of a socket scenario),
/// adds their progress up into one line, waits, and merges what they wrote.
package struct WorkersRun {
    let scenario: Scenario
    let workers: Int
    let quick: Bool
    let executable: String
    let folder: URL
    let progress: Bool
    /// The run's id, given to every worker and written into every part (`merge` checks it).
    let runID: String
    let children: RunningChildren

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A worker that a signal ended on its own: the scenario's verdict is CRASH.
    struct Crashed: Error, CustomStringConvertible {
        var worker: Int
        var workers: Int
        var crash: ChildCrash
        var description: String { "worker \(worker)/\(workers) \(crash.text)" }
    }

    func run() async throws -> Measurement {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A calibrated rate is measured once, here, and every worker gets its share of the total.
        let (scenario, calibration) = try await LoadExperiment.calibrate(
            scenario, processes: workers, progress: progress)
        let shared = SharedServer(scenario: scenario, shards: workers, quick: quick, folder: folder, runID: runID)
        var server: (core: FakeFrontmailCore, server: FakeFrontmailServer)?
        if scenario.transport.servesOtherProcesses {
            let core = shared.makeCore()
            var options = FakeFrontmailServer.Options()
            options.pathPrefix = "/fm-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            server = (core, try FakeFrontmailServer(core: core, options: options))
        }
        defer { server?.server.shutdown() }
        var measurement = try await LoadExperiment.withControl(scenario, share: workers, progress: progress) {
            try await runWorkers(
                scenario, shared: shared, server: server, rate: calibration.rows.isEmpty ? nil : scenario.load.rate)
        }
        measurement.prepend(calibration)
        return measurement
    }

    /// How a worker process ended: its exit status, its peak resident memory and its crash.
    private typealias Ended = (status: Int32, peak: Int, crash: ChildCrash?)

    /// The workers, each running its shard against the shared server, and their parts merged.
    private func runWorkers(
        _ scenario: Scenario, shared: SharedServer, server: (core: FakeFrontmailCore, server: FakeFrontmailServer)?,
        rate: Double?
    ) async throws -> Measurement {
        let ended = await startWorkers(scenario, serverURL: server?.server.url, rate: rate)
        // Every process's peak resident memory added up: a bound on what the run held at once.
        let peakBytes = ended.values.reduce(ChildProcess.ownPeakBytes()) { $0 + $1.peak }
        // A crashed worker is the scenario's finding, before anything else is said of the run.
        if let (index, crash) = ended.compactMapValues(\.crash).min(by: { $0.key < $1.key }) {
            throw Crashed(worker: index, workers: workers, crash: crash)
        }
        let failed = ended.mapValues(\.status).filter { $0.value != 0 && $0.value != ExitCode.interrupted.rawValue }
            .sorted { $0.key < $1.key }
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
            let (file, part) = try shared.write(
                server.core, interrupted: parts.contains { $0.part.header.interrupted })
            parts.append((file.path, part))
        }
        return try ShardMerge.judge(parts, scenario: scenario, peakBytes: peakBytes).measurement
    }

    /// Starts one worker process per shard and waits for all of them, drawing their progress
    /// once a second when asked; how each ended, by shard.
    private func startWorkers(_ scenario: Scenario, serverURL: URL?, rate: Double?) async -> [Int: Ended] {
        let board = ProgressBoard(workers: workers)
        let started = Date()
        let ended = await withTaskGroup(of: (Int, Int32, Int, ChildCrash?).self) { group -> [Int: Ended] in
            for index in 0..<workers {
                let request = ChildRequest.shard(
                    file: scenario.file, name: scenario.name, shard: Shard(uncheckedIndex: index, count: workers),
                    out: folder.path, seed: scenario.seed, quick: quick, server: serverURL, rate: rate, runID: runID)
                group.addTask {
                    let outcome = await ChildProcess.runCapturing(
                        executable, arguments: request.arguments, children: children
                    ) { reply in
                        if case .progress(let snapshot) = reply { board.update(index, snapshot) }
                    }
                    board.ended(index)
                    return (index, outcome.status, outcome.peakBytes, outcome.crash)
                }
            }
            if progress {
                group.addTask {
                    while !Task.isCancelled, board.running > 0 {
                        try? await Task.sleep(nanoseconds: 1_000_000_000)
                        board.draw(scenario: scenario, elapsed: Date().timeIntervalSince(started))
                    }
                    return (-1, 0, 0, nil)
                }
            }
            var ended: [Int: Ended] = [:]
            for await (index, status, peak, crash) in group where index >= 0 { ended[index] = (status, peak, crash) }
            return ended
        }
        if progress { board.clear() }
        return ended
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

    func draw(scenario: Scenario, elapsed: Double) {
        let line = state.withLock { state -> String in
            let text = ShardProgress.total(state.shards).render(
                scenario: scenario.name, elapsed: elapsed, workers: workers, running: state.running,
                total: scenario.load.sends)
            defer { state.lastLength = text.count }
            return text + String(repeating: " ", count: max(0, state.lastLength - text.count))
        }
        StandardStream.error("\r" + line)
    }

    func clear() {
        let length = state.withLock { $0.lastLength }
        if length > 0 {
            StandardStream.error("\r" + String(repeating: " ", count: length) + "\r")
        }
    }
}
