import FakeFrontmail
import Foundation
import FrontmailMutants
import LoadKit
import Simulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `frontmail-bench run`: the standard job. Runs scenario files, judges them, writes CSV.
public enum RunCommand {
    public static let usage = """
        usage: frontmail-bench run FILE|DIR... [--out DIR] [--quick] [--seed N] [--only NAME]... [--no-progress]
                                   [--junit FILE] [--summary-md FILE] [--schedule P] [--broken NAME]

        Runs every scenario (a DIR means its *.json files), prints one verdict line per scenario and
        the path of the results as the last lines on stdout, and writes DIR/<run>-<scenario>/ with
        summary.csv, history.csv, ledger.csv, timeseries.csv, jitter and latency histograms
        (docs/csv.md), and beside DIR/<run>-run.csv the report with charts (<run>-report.html,
        docs/report.md), JUnit XML (<run>-junit.xml) and a Markdown summary (<run>-summary.md).

          --out DIR       where results go (default results)
          --quick         shorten every scenario (its "quick" settings, or a tenth of the load)
          --seed N        override every scenario's seed
          --only NAME     run only this scenario (repeatable)
          --trace-send N  with one scenario: after the run, print send N's attempts as the server saw
                          them and the client's account of it (a failed virtual-time scenario prints
                          the replay command with this option; docs/simulation.md)
          --schedule P    on virtual time, the order of the jobs ready at one instant: fifo (the
                          default), random or pct[:D] (probabilistic concurrency testing at depth D,
                          1-20, default 3), seeded by the scenario's seed (docs/explore.md)
          --broken NAME   run one of the suite's deliberately broken clients instead of the SDK as it
                          ships (`explore --list-broken` names them): replays a find of `explore --broken`;
                          task-sleep-backoff (cancelled waits that hold their memory) only with a
                          scenario whose cancellation section has a soak
          --no-progress   no live progress line on stderr (it is off anyway when stderr is not a terminal)
          --junit FILE    write the JUnit XML there instead (a testsuite per scenario, a testcase per assertion)
          --summary-md FILE  write the Markdown summary there instead (it is also appended to
                          $GITHUB_STEP_SUMMARY when that is set)
          --workers N     run each load on N worker processes (one shard each; a socket scenario's
                          workers share one server this process runs), merge them, judge the union
                          (docs/distributed.md)
          --shard i/N     run only shard i (0-based) of N and write DIR/<scenario>.shard-i-of-N.fmshard
                          for `merge` (no verdicts); `env/N` takes i from $JOB_COMPLETION_INDEX
          --server URL    with --shard: send to this `serve --scenario` shared by every shard
          --run-id ID     with --shard: the run's name in every part (1-64 letters, digits, - and _;
                          give every shard of one run the same)
          --rate R        with --shard: the open loop's total rate in sends/s (replaces the file's,
                          a calibrated one included; give every shard the same)

        \(ExitTable.help("run"))
        """

    static let spec = RunOption.spec

    /// `--trace-send N`: a send's number in the run, 0 to the most sends a scenario may plan.
    static func traceSendNumber(_ parsed: Arguments) throws(Arguments.UsageError) -> Int? {
        guard let number = try parsed.integer(.traceSend) else { return nil }
        guard (0..<LoadSettings.maxSends).contains(number) else {
            throw Arguments.UsageError(message: "--trace-send must be 0-\(LoadSettings.maxSends - 1), not \(number)")
        }
        return number
    }

    /// `--broken NAME`: one of the catalog's clients.
    static func brokenClient(_ name: String?) throws(Arguments.UsageError) -> BrokenClient? {
        guard let name else { return nil }
        guard let client = BrokenClient.named(name) else {
            throw Arguments.UsageError(
                message:
                    "--broken: no broken client '\(name.prefix(80))' (\((BrokenClient.all + BrokenClient.soakOnly).map(\.name).joined(separator: ", ")))"
            )
        }
        return client
    }

    /// A usage or input error that ends the command with `code` (its message already printed).
    /// The options that shape every run mode, read and range-checked.
    struct Options {
        var seed: UInt64?
        var sharding: ShardOptions
        var traceSend: Int?
        var schedule: Schedule.Policy
        var broken: BrokenClient?
        var parallel: Bool { sharding.shard != nil || (sharding.workers ?? 1) > 1 }
    }

    public static func run(_ arguments: [String]) async -> ExitCode {
        let command = CommandArguments("run", arguments, spec: spec, usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        let options: Options
        let scenarios: [Scenario]
        let runID: String
        let out = URL(fileURLWithPath: parsed.value(.out) ?? "results")
        do {
            options = try self.options(parsed)
            scenarios = try self.scenarios(parsed, options)
            try refuseCombinations(scenarios, options, parsed)
            if options.sharding.shard != nil {
                return await runShard(scenarios, options: options.sharding, parsed: parsed, out: out)
            }
            runID = try claimRunID(parsed, out: out)
        } catch {
            return error.code
        }
        let showProgress = !parsed.flag(.noProgress) && isatty(2) == 1
        if let workers = options.sharding.workers, workers > 1 {
            guard let executable = Bundle.main.executablePath else {
                printError("run: --workers cannot find this program's path to start the workers")
                return .software
            }
            return await runWorkers(
                scenarios, workers: workers, parsed: parsed, executable: executable, out: out, runID: runID)
        }
        // Several scenarios: each in its own process, so one scenario's URLSession state (or a
        // crash) cannot affect the next.
        if scenarios.count > 1 && !parsed.flag(.sameProcess), let executable = Bundle.main.executablePath {
            return await runIsolated(scenarios, parsed: parsed, executable: executable, out: out, runID: runID)
        }
        var runner = ScenarioRunner(outputFolder: out, runID: runID, progress: showProgress)
        runner.traceSend = options.traceSend
        runner.schedule = options.schedule
        if let broken = options.broken { runner.run(broken: broken) }
        let child = parsed.value(.runID) != nil
        let inProcess = InProcessRun(scenarios: scenarios, runner: runner, quick: parsed.flag(.quick), child: child)
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: cancelling in-flight sends and writing partial results…"
        ) { try await inProcess.run() }
        guard case .success(let results) = outcome else { return .software }
        // A child of an isolated run leaves the report to its parent.
        let session = RunSession(
            command: "run", writer: ResultsWriter(root: out, runID: runID), outputs: child ? nil : outputs(parsed))
        return session.end(results, planned: scenarios.count, cancelled: cancelled)
    }

    /// The options, each range-checked where it is read.
    static func options(_ parsed: Arguments) throws(Exit) -> Options {
        do {
            return Options(
                seed: try parsed.unsigned(.seed), sharding: try ShardOptions(parsed),
                traceSend: try traceSendNumber(parsed), schedule: try schedulePolicy(parsed.value(.schedule)) ?? .fifo,
                broken: try brokenClient(parsed.value(.broken)))
        } catch {
            printError("run: \(error)\n\n\(usage)")
            throw Exit(code: .usage)
        }
    }

    /// The scenarios the positionals name, narrowed by `--only` and changed by `--quick` and `--seed`.
    static func scenarios(_ parsed: Arguments, _ options: Options) throws(Exit) -> [Scenario] {
        guard !parsed.positionals.isEmpty else {
            printError("run: name at least one scenario file or folder\n\n\(usage)")
            throw Exit(code: .usage)
        }
        var scenarios: [Scenario]
        switch CommandScenarios("run", parsed.positionals) {
        case .loaded(let loaded): scenarios = loaded
        case .exit(let code): throw Exit(code: code)
        }
        if let refused = refuseOutputsNamingInputs(
            "run", [RunOption.junit, .summaryMarkdown].map { ($0.rawValue, parsed.value($0)) },
            inputs: scenarios.map(\.file))
        {
            throw Exit(code: refused)
        }
        let only = parsed.all(.only)
        if !only.isEmpty {
            let unknown = only.filter { name in !scenarios.contains { $0.name == name } }
            guard unknown.isEmpty else {
                printError("run: no scenario named \(unknown.joined(separator: ", ")) (see frontmail-bench list)")
                throw Exit(code: .usage)
            }
            scenarios = scenarios.filter { only.contains($0.name) }
        }
        if parsed.flag(.quick) { scenarios = scenarios.map { $0.quickened() } }
        if let seed = options.seed {
            scenarios = scenarios.map {
                var copy = $0
                copy.seed = seed
                return copy
            }
        }
        return scenarios
    }

    /// The options that do not go together, and the notes on what an option does not change.
    static func refuseCombinations(_ scenarios: [Scenario], _ options: Options, _ parsed: Arguments) throws(Exit) {
        if options.traceSend != nil, scenarios.count != 1 || options.parallel {
            printError("run: --trace-send traces a send of one scenario run in this process: name one (--only NAME)")
            throw Exit(code: .usage)
        }
        if options.schedule != .fifo, options.parallel {
            printError("run: --schedule orders one simulated run in one process: not with --shard or --workers")
            throw Exit(code: .usage)
        }
        if options.broken != nil, options.parallel {
            printError("run: --broken runs one process's client: not with --shard or --workers")
            throw Exit(code: .usage)
        }
        if let broken = options.broken, BrokenClient.soakOnly.contains(where: { $0.name == broken.name }) {
            let soakless = scenarios.filter { scenario in
                guard case .cancellation(let settings) = scenario.experiment else { return true }
                return settings.soak == 0
            }
            if let first = soakless.first {
                printError(
                    "run: --broken \(broken.name) shows only in a cancellation soak (a scenario whose cancellation.soak is above 0): \(first.name) has none"
                )
                throw Exit(code: .usage)
            }
        }
        if let given = parsed.value(.runID), let problem = RunID.problem(given) {
            printError("run: --run-id \(problem)")
            throw Exit(code: .usage)
        }
        // Notes are the parent's to print: a child (given --run-id) stays quiet.
        guard parsed.value(.runID) == nil else { return }
        if let broken = options.broken {
            printError(
                "note: the client is the deliberately broken \(broken.name) (\(broken.summary)), not the SDK as it ships"
            )
        }
        let real = scenarios.filter { $0.clock != .virtual }.map(\.name)
        if options.schedule != .fifo, !real.isEmpty {
            printError(
                "note: --schedule orders virtual time only; \(real.joined(separator: ", ")) run\(real.count == 1 ? "s" : "") on the real clock as usual"
            )
        }
        let scaled = scenarios.filter { $0.clock == .virtual && $0.timeScale != 1 }
        if !scaled.isEmpty, !options.parallel {
            printError(
                "note: \(scaled.count) scenario\(scaled.count == 1 ? "" : "s") set timeScale, which has no effect on virtual time: policy time is simulated exactly (docs/simulation.md)"
            )
        }
    }

    /// The run's id: the parent's (`--run-id`, claimed here unless the parent claimed it), or a new
    /// one claimed in `out`.
    static func claimRunID(_ parsed: Arguments, out: URL) throws(Exit) -> String {
        do {
            guard let given = parsed.value(.runID) else {
                return try ResultsWriter.claim(root: out, runID: RunID.make()).runID
            }
            let claimedByParent = ProcessInfo.processInfo.environment[ChildEnvironment.claimedRun] == given
            unsetenv(ChildEnvironment.claimedRun)
            if !claimedByParent { _ = try ResultsWriter.claimExactly(root: out, runID: given) }
            return given
        } catch let exists as ResultsWriter.RunExists {
            printError("run: \(exists)")
            throw Exit(code: .usage)
        } catch {
            printError("run: --out \(out.path) cannot be written (\(error.localizedDescription))")
            throw Exit(code: .software)
        }
    }

    /// What the arguments ask to write besides the CSV.
    static func outputs(_ parsed: Arguments) -> RunOutputs {
        RunOutputs(junit: parsed.value(.junit), summaryMarkdown: parsed.value(.summaryMarkdown))
    }
}
