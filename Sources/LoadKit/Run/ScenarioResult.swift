import FakeFrontmail
import Foundation

/// What one experiment measured, before it is judged: summary rows, the metrics assertions read,
/// and the raw material of the results folder.
struct Measurement {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    /// Extra files of the results folder (probe histograms and samples), by name.
    var files: [String: String] = [:]
    /// The client's history (written as history.csv), with the server's effects per send.
    var history: History?
    var effects: [Int: Int] = [:]
    /// The server's ledger (written as ledger.csv).
    var ledger: AttemptLedger?
    var interrupted = false
    /// Seconds the experiment ran.
    var elapsed = 0.0

    /// The `run` rows every scenario ends with.
    mutating func addRunRows(scenario: String, timeScale: Double?) {
        var run = SummaryBuilder(scenario: scenario)
        run.add("run", "elapsed", "value", elapsed, "s")
        if let timeScale { run.add("run", "time_scale", "value", timeScale, "x") }
        rows += run.rows
    }
}

/// What one scenario produced.
public struct ScenarioResult: Sendable {
    public struct Check: Sendable {
        public var assertion: Assertion
        public var passed: Bool
        public var actual: Double
        public var expected: Double

        /// Every assertion evaluated against the metrics, in order.
        static func judge(_ assertions: [Assertion], _ metrics: [String: Double]) -> [Check] {
            assertions.map { assertion in
                let outcome = assertion.evaluate(metrics)
                return Check(
                    assertion: assertion, passed: outcome.passed, actual: outcome.actual, expected: outcome.expected)
            }
        }
    }

    public var scenario: Scenario
    public var rows: [SummaryRow]
    public var metrics: [String: Double]
    public var checks: [Check]
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
