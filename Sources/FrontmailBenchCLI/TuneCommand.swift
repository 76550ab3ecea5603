import FakeFrontmail
import Foundation
import LoadKit

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
          --check         read and check the file (with --quick, its quick sweep), say the sweep's
                          size and run nothing

        exit: 0 every cell correct and the analytic check agrees, 1 a duplicate, a lost send or a
        failed analytic check, 64 bad arguments, 65 a bad tune file, 70 results that cannot be written or an
        internal failure, 130 interrupted (partial results written)
        """

    static let spec = Arguments.Spec(options: ["out", "jobs"], flags: ["quick", "no-progress", "check"])

    public static func run(_ arguments: [String]) async -> ExitCode {
        let command = CommandArguments("tune", arguments, spec: spec, usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
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
        if parsed.flag("check") {
            let runs = tune.policies.count * tune.environments.count * tune.seeds
            print(
                "\(file): tune \(tune.name): \(tune.policies.count) policies × \(tune.environments.count) environments × \(tune.seeds) seeds = \(runs) runs"
            )
            return .success
        }
        guard let writer = claimOutput("tune", parsed, { try ResultsWriter.claim(root: $0, runID: RunID.make()) })
        else { return .usage }
        let runs = tune.policies.count * tune.environments.count * tune.seeds
        printError(
            "tune \(tune.name): \(tune.policies.count) policies × \(tune.environments.count) environments × \(tune.seeds) seeds = \(runs) runs, \(jobs) at a time"
        )
        let meter = ProgressMeter(live: !parsed.flag("no-progress") && isatty(2) == 1)
        var runner = TuneRunner(tune: tune, jobs: jobs)
        runner.progress = { done, total, label in meter.update(done: done, total: total, label: label) }
        let started = Date()
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: stopping the sweep and writing the cells that finished…"
        ) { [runner] in await runner.run() }
        meter.finish()
        let report = TuneReport(tune: tune, cells: (try? outcome.get()) ?? [])
        return TuneSession(writer: writer).end(
            report, planned: runs, elapsed: Date().timeIntervalSince(started), cancelled: cancelled)
    }
}
