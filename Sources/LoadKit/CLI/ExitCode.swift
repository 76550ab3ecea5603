import FakeFrontmail
import Foundation

/// The tool's exit codes (documented in the README; sysexits where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// An assertion failed.
    case failure = 1
    /// A regression against a baseline.
    case regression = 2
    /// Improvements beyond the tolerance only: the baseline should be updated.
    case improvement = 4
    /// Bad command-line arguments.
    case usage = 64
    /// A bad input file (scenario, plan, config, CSV).
    case dataError = 65
    /// Something failed that is not the input's fault (a socket, a file).
    case software = 70
    /// Stopped by SIGINT or SIGTERM (partial results were written).
    case interrupted = 130
}

/// How a subcommand's arguments begin: parsed, or an exit already decided (`--help` printed its
/// usage: exit 0; a bad argument was reported with the usage: exit 64).
enum CommandArguments {
    case parsed(Arguments)
    case exit(ExitCode)

    init(_ command: String, _ arguments: [String], spec: Arguments.Spec, usage: String) {
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: spec.adding(flag: "help"))
        } catch {
            printError("\(command): \(error)\n\n\(usage)")
            self = .exit(.usage)
            return
        }
        if parsed.flag("help") {
            print(usage)
            self = .exit(.success)
        } else {
            self = .parsed(parsed)
        }
    }
}

extension Arguments.Spec {
    func adding(flag: String) -> Arguments.Spec {
        Arguments.Spec(options: options, flags: flags.union([flag]))
    }
}

/// A command's scenario files, loaded and validated, or the exit already decided: a bad file was
/// reported as `FILE: field.path: reason` (65), a missing one as a usage error (64).
enum CommandScenarios {
    case loaded([Scenario])
    case exit(ExitCode)

    init(_ command: String, _ paths: [String]) {
        do {
            self = .loaded(try ScenarioLoader.load(paths))
        } catch let error as InputFileError {
            printError(error.description)
            self = .exit(.dataError)
        } catch {
            printError("\(command): \(error)")
            self = .exit(.usage)
        }
    }
}
