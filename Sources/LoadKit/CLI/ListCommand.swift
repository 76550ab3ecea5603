import Foundation

/// `frontmail-bench list`: the scenarios with their descriptions.
public enum ListCommand {
    public static let usage = "usage: frontmail-bench list [FILE|DIR...]   (default: scenarios/)"

    public static func run(_ arguments: [String]) -> ExitCode {
        let parsed: Arguments
        switch CommandArguments("list", arguments, spec: Arguments.Spec(), usage: usage) {
        case .parsed(let arguments): parsed = arguments
        case .exit(let code): return code
        }
        let scenarios: [Scenario]
        switch CommandScenarios("list", parsed.positionals.isEmpty ? ["scenarios"] : parsed.positionals) {
        case .loaded(let loaded): scenarios = loaded
        case .exit(let code): return code
        }
        let width = scenarios.map(\.name.count).max() ?? 0
        for scenario in scenarios {
            let padding = String(repeating: " ", count: width - scenario.name.count)
            print("\(scenario.name)\(padding)  [\(scenario.transport.rawValue)] \(scenario.description)")
        }
        return .success
    }
}
