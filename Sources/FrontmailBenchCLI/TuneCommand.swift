import FakeFrontmail
import Foundation
import LoadKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `frontmail-bench tune`: sweeps retry policies over fault environments and recommends one.
public enum TuneCommand {
    public static let usage = """
        usage: frontmail-bench tune FILE [STORMS...] [--quick] [--out DIR] [--jobs N] [--no-progress]

        Runs every (policy × environment × seed) cell of a tune file (docs/tune.md) in process
        against the fake API, through the real SDK, and writes DIR/<run>-tune-<name>/cells.csv (one
        row per policy and environment), regret.csv, deadlines.csv, sanity.csv (the analytic checks)
        and summary.csv, plus DIR/<run>-run.csv for compare and one report. Prints the recommended
        policy beside the default.

        With STORMS (up to three tune files with a metastability map) the decision is one over all
        of them: a policy metastable, or overloaded before the drop, where another policy of a storms
        sweep recovers is never recommended; policies a storms sweep did not measure are run there
        for the decision (storms.csv says which, and where each recovered or failed).

          --out DIR       where results go (default results)
          --quick         each file's quick sweep (its "quick" block, or one seed): it checks the
                          cells and names the rule's pick, and recommends nothing
          --jobs N        cells run at once (default: the number of cores)
          --no-progress   no live progress line on stderr (it is off anyway when stderr is not a terminal)
          --check         read and check the files (with --quick, their quick sweeps), say each sweep's
                          size and run nothing

        \(ExitTable.help("tune"))
        """

    static let spec = Arguments.Spec(options: ["out", "jobs"], flags: ["quick", "no-progress", "check"])

    public static func run(_ arguments: [String]) async -> ExitCode {
        let command = CommandArguments("tune", arguments, spec: spec, usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        let jobs: Int
        let tunes: [TuneFile]
        switch files(parsed) {
        case .success(let read): (jobs, tunes) = read
        case .failure(let exit): return exit.code
        }
        let sizes = tunes.map { $0.policies.count * $0.scaledEnvironments.count * $0.seeds }
        if parsed.flag("check") {
            for (file, (tune, runs)) in zip(parsed.positionals, zip(tunes, sizes)) {
                print(
                    "\(file): tune \(tune.name): \(tune.policies.count) policies × \(tune.scaledEnvironments.count) environments × \(tune.seeds) seeds = \(runs) runs"
                )
            }
            return .success
        }
        guard let writer = claimOutput("tune", parsed, { try ResultsWriter.claim(root: $0, runID: RunID.make()) })
        else { return .software }
        let runs = sizes.reduce(0, +)
        for (tune, size) in zip(tunes, sizes) {
            printError(
                "tune \(tune.name): \(tune.policies.count) policies × \(tune.scaledEnvironments.count) environments × \(tune.seeds) seeds = \(size) runs, \(jobs) at a time"
            )
        }
        let meter = ProgressMeter(live: !parsed.flag("no-progress") && isatty(2) == 1)
        let started = Date()
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: stopping the sweep and writing the cells that finished…"
        ) { [tunes, sizes] in await sweep(tunes, sizes: sizes, jobs: jobs, meter: meter) }
        let (cells, joint) = (try? outcome.get()) ?? ([], nil)
        // A signal while deciding: the decisions still to come are skipped (each file's own is
        // made), what there is is written and the exit is 130; while writing, the writing ends (0 or
        // 1, as a finished sweep). Either within the 2 s every mode keeps.
        let late = LateSignal(notice: "\ninterrupted: making no more decisions, writing the results…")
        defer { late.stop() }
        var reports: [TuneReport] = []
        for (index, tune) in tunes.enumerated() {
            reports.append(
                TuneReport(
                    tune: tune, cells: index < cells.count ? cells[index] : [], joint: index == 0 ? joint : nil,
                    interrupted: cancelled || late.came, report: { meter.note("\(tune.name): \($0)") },
                    stop: { late.came }))
        }
        var session = TuneSession(writer: writer)
        session.progress = { meter.note($0) }
        session.written = { meter.finish() }
        return session.end(
            reports, planned: runs, elapsed: Date().timeIntervalSince(started), cancelled: cancelled || late.came)
    }

    /// `--jobs` and the tune files (a sweep, then up to three storms sweeps with map places), read
    /// and checked, `--quick` applied.
    static func files(_ parsed: Arguments) -> Result<(jobs: Int, tunes: [TuneFile]), Exit> {
        let jobs: Int
        do {
            jobs = try parsed.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
        } catch {
            printError("tune: \(error)\n\n\(usage)")
            return .failure(Exit(code: .usage))
        }
        guard (1...64).contains(jobs) else {
            printError("tune: --jobs needs a whole number from 1 to 64, not \(jobs)\n\n\(usage)")
            return .failure(Exit(code: .usage))
        }
        guard (1...4).contains(parsed.positionals.count) else {
            printError("tune: name one tune file, and up to three storms files after it\n\n\(usage)")
            return .failure(Exit(code: .usage))
        }
        var tunes: [TuneFile] = []
        for file in parsed.positionals {
            do {
                let tune = try TuneFile.load(file: file)
                tunes.append(parsed.flag("quick") ? tune.quickened() : tune)
            } catch {
                printError(error.description)
                return .failure(Exit(code: .dataError))
            }
        }
        for (file, tune) in zip(parsed.positionals, tunes).dropFirst()
        where !tune.environments.contains(where: { $0.map != nil }) {
            printError(
                "tune: \(file): no environment has a map place: only a storms sweep (a metastability map) can weigh on \(parsed.positionals[0])'s decision\n\n\(usage)"
            )
            return .failure(Exit(code: .usage))
        }
        for (index, tune) in tunes.enumerated() where tunes[..<index].contains(where: { $0.name == tune.name }) {
            printError("tune: two files are named \(tune.name): their results would share a folder\n\n\(usage)")
            return .failure(Exit(code: .usage))
        }
        return .success((jobs, tunes))
    }

    /// Every file's cells, then (with storms files) the joint decision's screen.
    static func sweep(
        _ tunes: [TuneFile], sizes: [Int], jobs: Int, meter: ProgressMeter
    ) async -> ([[TuneCell]], JointDecision?) {
        let total = sizes.reduce(0, +)
        var all: [[TuneCell]] = []
        for (index, tune) in tunes.enumerated() {
            var runner = TuneRunner(tune: tune, jobs: jobs)
            let before = sizes[..<index].reduce(0, +)
            runner.progress = { done, _, label in
                meter.update(done: before + done, total: total, label: "\(tune.name) \(label)")
            }
            all.append(await runner.run())
            if Task.isCancelled { return (all, nil) }
        }
        guard tunes.count > 1 else { return (all, nil) }
        let storms = Array(zip(tunes, all).dropFirst())
        let screens = storms.compactMap { StormScreen(storms: $0.0, cells: $0.1) }
        guard screens.count == storms.count else { return (all, nil) }
        meter.note("deciding over \(tunes[0].name) and \(storms.map(\.0.name).joined(separator: ", "))")
        let joint = await JointDecision.make(tune: tunes[0], cells: all[0], screens: screens) {
            policy, environment, index in
            meter.note("\(storms[index].0.name): running \(policy.label) at \(environment.name) for the decision")
            return await TuneRunner.cell(policy, at: environment, of: storms[index].0, jobs: jobs)
        }
        return (all, joint)
    }
}
