import Foundation
import LoadKit

/// `frontmail-bench list`: the scenarios with their descriptions, or (`--metrics`) every metric an
/// assertion can name with its unit, polarity and strictness.
public enum ListCommand {
    public static let usage = """
        usage: frontmail-bench list [FILE|DIR...]   (default: scenarios/)
               frontmail-bench list --metrics       every metric name: unit, polarity, strict

        \(ExitTable.help("list"))
        """

    public static func run(_ arguments: [String]) -> ExitCode {
        let command = CommandArguments("list", arguments, spec: Arguments.Spec(flags: ["metrics"]), usage: usage)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        if parsed.flag("metrics") {
            guard parsed.positionals.isEmpty else {
                printError("list: --metrics takes no scenario files\n\(usage)")
                return .usage
            }
            for line in metricListing() { print(line) }
            return .success
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

    /// `name  unit  polarity  strict` lines for every entry.
    static func metricListing() -> [String] {
        let rows: [[String]] =
            [["name", "unit", "polarity", "strict"]]
            + MetricCatalog.entries.map { entry in
                [entry.key, entry.unit, entry.policy.polarity.rawValue, entry.policy.strict ? "yes" : "no"]
            }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { fields in
            (0..<3).map { fields[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined()
                + fields[3]
        }
    }
}
