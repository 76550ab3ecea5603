import Foundation

@testable import LoadKit

/// Runs the quick version of the standard scenario `name` (from `scenarios/`) in this process,
/// with whatever `configure` breaks in the client; results are not written.
func runStandardQuick(
    _ name: String, configure: (inout ScenarioRunner) -> Void = { _ in }
) async throws -> ScenarioResult {
    var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
    configure(&runner)
    let file = InputFuzzTests.scenarioFolder.appendingPathComponent("\(name).json").path
    return try await runner.run(Scenario.load(file: file).quickened())
}

/// The assertions a result failed, by their text.
func failedAssertions(_ result: ScenarioResult) -> Set<String> {
    Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
}
