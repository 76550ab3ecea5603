import FakeFrontmail
import Foundation
import LoadKit
import Simulator

/// How a subcommand's arguments begin: parsed, or an exit already decided (`--help` printed its
/// usage: exit 0; a bad argument was reported with the usage: exit 64).
enum CommandArguments {
    case parsed(Arguments)
    case exit(ExitCode)

    /// `takesFiles` false: the command reads no file named on its line (certify, explore, serve),
    /// so a stray argument (`certify --client C my-claim.json`) is a usage error, not ignored.
    init(_ command: String, _ arguments: [String], spec: Arguments.Spec, usage: String, takesFiles: Bool = true) {
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
        } else if !takesFiles, let stray = parsed.positionals.first {
            printError(
                "\(command): unexpected argument '\(stray)': \(command) reads no file named on its line\n\n\(usage)")
            self = .exit(.usage)
        } else {
            self = .parsed(parsed)
        }
    }

    /// What the command exits with when it stops here (after `--help`, or on a usage error).
    var exitCode: ExitCode {
        switch self {
        case .parsed: .success
        case .exit(let code): code
        }
    }
}

extension Arguments.Spec {
    func adding(flag: String) -> Arguments.Spec {
        Arguments.Spec(options: options, flags: flags.union([flag]), repeatable: repeatable, unlisted: unlisted)
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

/// Refuses, before any work, a command given no inputs (`missing` says what to name) or an
/// output option that names one of its inputs: nil when neither, else the usage exit after saying why.
func refuseInputsAndOutputs(
    _ command: String, _ parsed: Arguments, outputs: [String], missing: String, usage: String
) -> ExitCode? {
    guard !parsed.positionals.isEmpty else {
        printError("\(command): \(missing)\n\n\(usage)")
        return .usage
    }
    return refuseOutputsNamingInputs(
        command, outputs.map { ($0, parsed.value($0)) }, inputs: parsed.positionals)
}

/// The results folder `--out` names (`results` when not given), claimed by `claim`; nil after
/// saying why it cannot be written (every command then exits 70: results that cannot be written).
func claimOutput<Claimed>(
    _ command: String, _ parsed: Arguments, _ claim: (URL) throws -> Claimed
) -> Claimed? {
    let out = URL(fileURLWithPath: parsed.value("out") ?? "results")
    do {
        return try claim(out)
    } catch {
        printError("\(command): --out \(out.path) cannot be written (\(error.localizedDescription))")
        return nil
    }
}

/// Refuses, before any work, an output option that names one of the command's inputs: nil when
/// none does, else the usage exit after saying which.
func refuseOutputsNamingInputs(
    _ command: String, _ outputs: [(option: String, path: String?)], inputs: [String]
) -> ExitCode? {
    for (option, path) in outputs {
        guard let path, let clash = OutputFile.clash(outputs: [path], inputs: inputs) else { continue }
        printError(
            "\(command): --\(option) \(clash.output) is an input of this command (\(clash.input)); give another path")
        return .usage
    }
    return nil
}

/// `--schedule P` of `run` and `explore`: fifo, random, pct or pct:D (nil: not given).
func schedulePolicy(_ text: String?) throws(Arguments.UsageError) -> Schedule.Policy? {
    guard let text else { return nil }
    guard let policy = Schedule.policy(parsing: text) else {
        throw Arguments.UsageError(
            message:
                "--schedule must be fifo, random, pct or pct:D (D \(Schedule.depths.lowerBound)-\(Schedule.depths.upperBound)), not '\(text.prefix(40))'"
        )
    }
    return policy
}

/// A usage or input error that ends a command with `code` (its message already printed).
struct Exit: Error { var code: ExitCode }
