import Foundation
import LoadKit

/// The `frontmail-bench` command: dispatches to its subcommands.
public enum FrontmailBench {
    public static let usage = """
        usage: frontmail-bench <command> [options]

        commands:
          run       run scenario files against the fake API and judge the SDK (the main job)
          tune      sweep retry policies over fault environments and recommend the defaults
          merge     merge the shards of a run (run --shard) and judge them as one run
          report    the HTML report (and JUnit, Markdown) of a run's results
          list      list the scenarios with their descriptions
          compare   compare two summary CSVs: the regression gate
          baseline  merge several benchmark runs into a baseline for compare
          serve     run the fake Frontmail API on 127.0.0.1

        `frontmail-bench <command> --help` describes each command.
        """

    public static func main(_ arguments: [String]) async -> ExitCode {
        guard let command = arguments.first else {
            printError(usage)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "run": return await RunCommand.run(rest)
        case "tune": return await TuneCommand.run(rest)
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
