import FakeFrontmail
import Foundation

/// `frontmail-bench list`: the scenarios with their descriptions.
public enum ListCommand {
    public static let usage = "usage: frontmail-bench list [FILE|DIR...]   (default: scenarios/)"

    public static func run(_ arguments: [String]) -> ExitCode {
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: Arguments.Spec(flags: ["help"]))
        } catch {
            printError("list: \(error)\n\(usage)")
            return .usage
        }
        if parsed.flag("help") {
            print(usage)
            return .success
        }
        do {
            let scenarios = try ScenarioLoader.load(parsed.positionals.isEmpty ? ["scenarios"] : parsed.positionals)
            let width = scenarios.map(\.name.count).max() ?? 0
            for scenario in scenarios {
                let padding = String(repeating: " ", count: width - scenario.name.count)
                print("\(scenario.name)\(padding)  [\(scenario.transport.rawValue)] \(scenario.description)")
            }
            return .success
        } catch let error as InputFileError {
            printError(error.description)
            return .dataError
        } catch {
            printError("list: \(error)")
            return .usage
        }
    }
}
