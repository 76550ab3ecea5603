import Foundation

/// What one scenario produced.
public struct ScenarioResult: Sendable {
    public var scenario: Scenario
    public var rows: [SummaryRow]
    public var metrics: [String: Double]
    public var checks: [AssertionCheck]
    public var folder: URL?
    public var interrupted: Bool
    public var elapsed: Double

    public var passed: Bool { !interrupted && checks.allSatisfy(\.passed) }

    /// `PASS name (n assertions)` or `FAIL name: assertion (actual x)…`.
    public var verdictLine: String {
        if interrupted { return "INTERRUPTED \(scenario.name)" }
        let failed = checks.filter { !$0.passed }
        if failed.isEmpty { return "PASS \(scenario.name) (\(checks.count) assertions)" }
        let reasons = failed.map { "\($0.assertion.text) (actual \(SummaryCSV.format($0.actual)))" }
        return "FAIL \(scenario.name): " + reasons.joined(separator: "; ")
    }
}
