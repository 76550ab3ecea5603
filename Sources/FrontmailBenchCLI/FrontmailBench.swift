import Foundation
import LoadKit

/// The `frontmail-bench` command: dispatches to its subcommands.
public enum FrontmailBench {
    public static let usage = """
        usage: frontmail-bench <command> [options]

        commands:
          run       run scenario files against the fake API and judge the SDK (the main job)
          tune      sweep retry policies over fault environments and recommend the defaults
          explore   generated scenarios judged by universal properties; failures shrunk to files
          certify   grade any HTTP client's retries from the server's record alone
          merge     merge the shards of a run (run --shard) and judge them as one run
          report    the HTML report (and JUnit, Markdown) of a run's results
          list      list the scenarios with their descriptions
          compare   compare two summary CSVs: the regression gate
          baseline  merge several benchmark runs into a baseline for compare
          serve     run the fake Frontmail API on 127.0.0.1

        `frontmail-bench <command> --help` describes each command.
        """

    /// The process's first step, before anything is printed: SIGINT, SIGTERM and SIGHUP are
    /// received from here to the exit (a signal before a mode listens is kept for it), SIGPIPE
    /// cannot end the process, and a child of another `frontmail-bench` ends with its parent.
    public static func startProcess() {
        ProcessSignals.install()
        Lifeline.watchParent()
    }

    /// What the process exits with: the command's code, or 128 + a signal that no mode took
    /// (one that came after the command stopped listening, or in a command that never does) when
    /// the command itself succeeded.
    public static func exitStatus(_ code: ExitCode) -> Int32 {
        if code == .success, let signal = ProcessSignals.router.unheard { return 128 + signal }
        return code.rawValue
    }

    public static func main(_ arguments: [String]) async -> ExitCode {
        guard let command = arguments.first else {
            printError(usage)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "run": return await RunCommand.run(rest)
        case "tune": return await TuneCommand.run(rest)
        case "explore": return await ExploreCommand.run(rest)
        case "certify": return await CertifyCommand.run(rest)
        case "report": return ReportCommand.run(rest)
        case "merge": return MergeCommand.run(rest)
        case "list": return ListCommand.run(rest)
        case "compare": return CompareCommand.run(rest)
        case "baseline": return BaselineCommand.run(rest)
        case "serve": return ServeCommand.run(rest)
        case "--help", "-h", "help":
            print(usage)
            return .success
        default:
            printError("frontmail-bench: unknown command '\(command)'\n\n\(usage)")
            return .usage
        }
    }
}
