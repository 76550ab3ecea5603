import FakeFrontmail
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `frontmail-bench tune`: sweeps retry policies over fault environments and recommends one.
public enum TuneCommand {
    public static let usage = """
        usage: frontmail-bench tune FILE [--quick] [--out DIR] [--jobs N] [--no-progress]

        Runs every (policy × environment × seed) cell of a tune file (docs/tune.md) in process
        against the fake API, through the real SDK, and writes DIR/<run>-tune-<name>/cells.csv (one
        row per policy and environment), sanity.csv (the analytic brownout check) and summary.csv,
        plus DIR/<run>-run.csv for compare. Prints the recommended policy beside the default.

          --out DIR       where results go (default results)
          --quick         the file's quick sweep (its "quick" block, or one seed)
          --jobs N        cells run at once (default: the number of cores)
          --no-progress   no live progress line on stderr (it is off anyway when stderr is not a terminal)

        exit: 0 every cell correct and the analytic check agrees, 1 a duplicate, a lost send or a
        failed analytic check, 64 bad arguments, 65 a bad tune file, 130 interrupted (partial results written)
        """

    static let spec = Arguments.Spec(options: ["out", "jobs"], flags: ["quick", "no-progress"])

    public static func run(_ arguments: [String]) async -> ExitCode {
        let parsed: Arguments
        switch CommandArguments("tune", arguments, spec: spec, usage: usage) {
        case .parsed(let arguments): parsed = arguments
        case .exit(let code): return code
        }
        let jobs: Int
        do {
            jobs = try parsed.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
        } catch {
            printError("tune: \(error)\n\n\(usage)")
            return .usage
        }
        guard (1...64).contains(jobs) else {
            printError("tune: --jobs needs a whole number from 1 to 64, not \(jobs)\n\n\(usage)")
            return .usage
        }
        guard parsed.positionals.count == 1, let file = parsed.positionals.first else {
            printError("tune: name one tune file\n\n\(usage)")
            return .usage
        }
        var tune: TuneFile
        do {
            tune = try TuneFile.load(file: file)
        } catch {
            printError(error.description)
            return .dataError
        }
        if parsed.flag("quick") { tune = tune.quickened() }
        let out = URL(fileURLWithPath: parsed.value("out") ?? "results")
        let writer: ResultsWriter
        do {
            writer = try ResultsWriter.claim(root: out, runID: RunID.make())
        } catch {
            printError("tune: --out \(out.path) cannot be written (\(error.localizedDescription))")
            return .usage
        }
        let runs = tune.policies.count * tune.environments.count * tune.seeds
        printError(
            "tune \(tune.name): \(tune.policies.count) policies × \(tune.environments.count) environments × \(tune.seeds) seeds = \(runs) runs, \(jobs) at a time"
        )
        let meter = ProgressMeter(live: !parsed.flag("no-progress") && isatty(2) == 1)
        var runner = TuneRunner(tune: tune, jobs: jobs)
        runner.progress = { done, total, label in meter.update(done: done, total: total, label: label) }
        let started = Date()
        let work = Task { await runner.run() }
        let interruption = InterruptHandler { _ in
            printError("\ninterrupted: stopping the sweep and writing the cells that finished…")
            work.cancel()
        }
        let cells = await work.value
        interruption.stop()
        meter.finish()
        let elapsed = Date().timeIntervalSince(started)
        let report = TuneReport(tune: tune, cells: cells)
        let folder = out.appendingPathComponent("\(writer.runID)-tune-\(tune.name)")
        let sends = report.measured.reduce(0) { $0 + $1.sends }
        var rows = report.rows
        var run = SummaryBuilder(scenario: tune.name)
        run.add("run", "elapsed", "value", elapsed, "s")
        run.add("tune", "sweep", "sends_per_s", Double(sends) / max(elapsed, 1e-9), "sends/s")
        if work.isCancelled { run.add("run", "interrupted", "value", 1, "runs") }
        rows += run.rows
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try report.cellsCSV.write(to: folder.appendingPathComponent("cells.csv"), atomically: true, encoding: .utf8)
            try report.sanityCSV.write(
                to: folder.appendingPathComponent("sanity.csv"), atomically: true, encoding: .utf8)
            try SummaryCSV.render(rows, runID: writer.runID).write(
                to: folder.appendingPathComponent("summary.csv"), atomically: true, encoding: .utf8)
            _ = try writer.writeRun(rows)
            try HTMLReport.sweep(
                name: tune.name, runID: writer.runID, cellsCSV: report.cellsCSV,
                recommended: Recommendation.choose(report.measured)?.policy.label, text: report.text
            ).write(to: RunOutputs.reportPath(of: writer.runCSV), atomically: true, encoding: .utf8)
        } catch {
            printError("tune: could not write the results under \(out.path): \(error)")
            return .software
        }
        if work.isCancelled {
            let finished = report.measured.reduce(0) { $0 + $1.runs.count }
            print("partial sweep (interrupted): \(finished) of \(runs) runs finished; figures cover those only")
        }
        print(report.text)
        print(
            String(
                format: "%d cells, %d sends in %.1f s (%.0f sends/s)", report.measured.count, sends, elapsed,
                Double(sends) / max(elapsed, 1e-9)))
        print("cells: \(folder.appendingPathComponent("cells.csv").path)")
        print("report: \(RunOutputs.reportPath(of: writer.runCSV).path)")
        print("results: \(writer.runCSV.path)")
        if work.isCancelled { return .interrupted }
        return report.correct ? .success : .failure
    }
}

/// One progress line for a long job: done of total, elapsed, an ETA from the rate so far.
final class ProgressMeter: Sendable {
    private struct State {
        var started = Date()
        var lastPrinted = Date.distantPast
        var lastPercent = -1
    }

    private let live: Bool
    private let state = Mutex(State())

    init(live: Bool) { self.live = live }

    func update(done: Int, total: Int, label: String) {
        let now = Date()
        let line: String? = state.withLock { state in
            let percent = total == 0 ? 100 : done * 100 / total
            // Live: at most 4 times a second. Not a terminal: a line per 10 %.
            if live {
                guard now.timeIntervalSince(state.lastPrinted) >= 0.25 || done == total else { return nil }
            } else {
                guard percent / 10 != state.lastPercent / 10 || done == total else { return nil }
            }
            state.lastPrinted = now
            state.lastPercent = percent
            let elapsed = now.timeIntervalSince(state.started)
            let eta = done == 0 ? Double.nan : elapsed / Double(done) * Double(total - done)
            return String(
                format: "[%d/%d] %d%% %.0f s elapsed, ETA %@ — %@", done, total, percent, elapsed,
                eta.isFinite ? String(format: "%.0f s", eta) : "?", label)
        }
        guard let line else { return }
        if live {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        } else {
            printError(line)
        }
    }

    func finish() {
        if live { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
