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

/// `frontmail-bench explore`: generated scenarios judged by universal properties, failures shrunk.
public enum ExploreCommand {
    public static let usage = """
        usage: frontmail-bench explore [--runs N | --time DURATION] [--seed S] [--schedule P] [--jobs N]
                                       [--transport T] [--out DIR] [--broken NAME] [--stop-on-failure]
                                       [--no-progress]
               frontmail-bench explore --list-broken

        Draws scenarios from a seed (a client from the whole valid range, a payload, 1-200 sends,
        status reads and cancels, a plan from a random subset of the fault kinds), runs each on
        virtual time through the SDK and judges it by every universal property (docs/explore.md).
        A case that breaks one is shrunk to a small scenario file that still breaks it, written to
        DIR/<run>-explore/found/<property>-<n>.json; `frontmail-bench run FILE` replays it. Prints
        one verdict line per property (PASS, FAIL or VACUOUS: never checked) and writes
        DIR/<run>-explore/explore.csv.

          --runs N        stop after N cases (1-10000000)
          --time DURATION stop starting cases after this long (default 60s; up to 24h)
          --seed S        the first case's seed (default 1): the same seed and --runs give the
                          same cases, verdicts and files
          --schedule P    the order of the jobs ready at one instant in each case: fifo (the
                          default), random or pct[:D] (probabilistic concurrency testing at depth D,
                          1-20, default 3), seeded by the case's seed; a found file's replay command
                          names it
          --jobs N        cases run at once (default: the number of cores, three times that
                          with --transport socket; 1-64)
          --transport T   inProcess (the default: the fake in this process, on virtual time) or
                          socket: URLSession over loopback on the SDK's own clock and timers, each
                          case bounded for the real clock (waits of at most 2 s, 16 sends) and a
                          hang after 60 s; time is judged with real time's tolerances, and a
                          found file replays over sockets (not with --schedule)
          --out DIR       where results go (default results)
          --broken NAME   explore one of the suite's deliberately broken clients instead of the
                          SDK as it is (--list-broken names them): proof that a property catches it
          --stop-on-failure
                          stop once a case broke a property (after shrinking it)
          --list-broken   list the broken clients with the property each must fail
          --no-progress   no progress lines on stderr

        \(ExitTable.help("explore"))
        """

    static let spec = Arguments.Spec(
        options: ["runs", "time", "seed", "jobs", "out", "broken", "schedule", "transport"],
        flags: ["list-broken", "no-progress", "stop-on-failure"])

    /// `--list-broken`: each broken client's whole name (scripts read it as the first word), padded
    /// to the longest, then the property it must break and what it does.
    static func brokenList() -> [String] {
        let width = BrokenClient.all.map(\.name.count).max() ?? 0
        return BrokenClient.all.map { client in
            "\(client.name.padding(toLength: width, withPad: " ", startingAt: 0)) \(client.property): \(client.summary)"
        }
    }

    public static func run(_ arguments: [String]) async -> ExitCode {
        let command = CommandArguments("explore", arguments, spec: spec, usage: usage, takesFiles: false)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        if parsed.flag("list-broken") {
            for line in brokenList() { print(line) }
            return .success
        }
        let options: Explorer.Options
        do {
            options = try Self.options(parsed)
        } catch {
            printError("explore: \(error)\n\n\(usage)")
            return .usage
        }
        guard let writer = claimOutput("explore", parsed, { try ExploreWriter.claim(root: $0, runID: RunID.make()) })
        else { return .software }
        let bound = options.runs.map { "\($0) cases" } ?? String(format: "%.0f s", options.seconds ?? 0)
        printError(
            "explore: seed \(options.seed), \(bound), \(options.jobs) at a time, "
                + (options.overSockets
                    ? "over sockets on the real clock" : "schedule \(Schedule.spelled(options.schedule))")
                + (options.broken.map { ", broken client \($0.name)" } ?? ""))
        // This process runs explore alone: its memory stays bounded on long runs (docs/explore.md).
        _ = Explorer.limitArenas(jobs: options.jobs)
        var explorer = Explorer(options: options)
        if !parsed.flag("no-progress") { explorer.progress = { printError($0) } }
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: stopping and writing what was found so far…"
        ) { [explorer] in await explorer.run() }
        guard case .success(var summary) = outcome else {
            printError("explore: the exploration failed")
            return .software
        }
        do {
            try writer.write(&summary)
        } catch {
            printError("explore: results could not be written to \(writer.folder.path) (\(error))")
            return .software
        }
        for line in summary.verdictLines + summary.coverageLines { print(line) }
        printError(
            String(
                format: "explore: %d cases, %d sends in %.1f s (%.0f cases/s); results in %@", summary.runs,
                summary.sends, summary.wallSeconds, Double(summary.runs) / max(summary.wallSeconds, 1e-9),
                writer.folder.path))
        if cancelled || summary.interrupted { return .interrupted }
        return summary.failed ? .failure : .success
    }

    /// The options, range-checked where they are read.
    static func options(_ parsed: Arguments) throws -> Explorer.Options {
        var options = Explorer.Options()
        if let runs = try parsed.integer("runs") {
            guard (1...10_000_000).contains(runs) else {
                throw Arguments.UsageError(message: "--runs must be 1-10000000, not \(runs)")
            }
            options.runs = runs
        }
        if let text = parsed.value("time") {
            guard options.runs == nil else {
                throw Arguments.UsageError(message: "give --runs or --time, not both")
            }
            guard let span = TimeSpan(parsing: text), span.seconds >= 1, span.seconds <= 86_400 else {
                throw Arguments.UsageError(
                    message: "--time must be a duration from 1s to 24h (60s, 10m, 2h), not '\(text)'")
            }
            options.seconds = span.seconds
        }
        if options.runs == nil, options.seconds == nil { options.seconds = 60 }
        options.seed = try parsed.unsigned("seed") ?? 1
        let overSockets = parsed.value("transport") == "socket"
        // Over sockets a case mostly waits on the real clock: three at a time per core.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = try parsed.integer("jobs") ?? min(64, overSockets ? 3 * cores : cores)
        guard (1...64).contains(jobs) else {
            throw Arguments.UsageError(message: "--jobs needs a whole number from 1 to 64, not \(jobs)")
        }
        options.jobs = jobs
        options.stopOnFailure = parsed.flag("stop-on-failure")
        if let policy = try schedulePolicy(parsed.value("schedule")) { options.schedule = policy }
        switch parsed.value("transport") {
        case nil, "inProcess": break
        case "socket":
            guard parsed.value("schedule") == nil else {
                throw Arguments.UsageError(
                    message: "--schedule orders virtual time's jobs: not with --transport socket")
            }
            options.overSockets = true
        case let other?:
            throw Arguments.UsageError(message: "--transport must be inProcess or socket, not '\(other)'")
        }
        options.broken = try RunCommand.brokenClient(parsed.value("broken"))
        return options
    }
}
