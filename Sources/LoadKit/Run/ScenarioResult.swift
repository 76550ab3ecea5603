import FakeFrontmail
import Foundation
import Simulator

/// What one scenario produced.
public struct ScenarioResult: Sendable {
    public var scenario: Scenario
    public var rows: [SummaryRow]
    public var metrics: [String: Double]
    public var checks: [AssertionCheck]
    public var folder: URL?
    public var interrupted: Bool
    public var elapsed: Double
    /// What the simulation cost (nil on the real clock).
    public var simulation: Simulation.Figures?
    /// Wall seconds the scenario took in this process (nil for shards merged).
    public var wallSeconds: Double?
    /// The number of the first logical send that failed (nil: none did, or no load ran).
    public var firstFailedSend: Int?
    /// The trace `--trace-send` asked for.
    public var trace: String?
    /// The schedule the run's jobs were ordered by (`--schedule`).
    public var schedule: Schedule.Policy = .fifo

    public var passed: Bool { !interrupted && checks.allSatisfy(\.passed) }

    /// `in 2.1 s`, or on virtual time `in 0.4 s (1066.0 s simulated, 2665× real time)`.
    public var timingText: String {
        guard let simulation else { return String(format: "in %.1f s", wallSeconds ?? elapsed) }
        return String(
            format: "in %.1f s (%.1f s simulated, %.0f× real time)", simulation.wallSeconds, simulation.virtualSeconds,
            simulation.speed)
    }

    /// `, over its wall budget (95.2 s > 60 s)` when the scenario took longer than its file's
    /// `wallBudget`; empty otherwise.
    public var budgetText: String {
        guard let budget = scenario.wallBudget?.seconds, let wallSeconds, wallSeconds > budget else { return "" }
        return String(format: ", over its wall budget (%.1f s > %g s)", wallSeconds, budget)
    }

    /// The command that runs this scenario again exactly (virtual time only: a real-clock run is
    /// not reproducible), narrowed to the first failed send when there is one.
    public func replayCommand(quick: Bool, broken: String? = nil) -> String? {
        guard scenario.clock == .virtual, !scenario.file.isEmpty else { return nil }
        return Self.replayCommand(
            file: scenario.file, quick: quick, seed: scenario.seed, schedule: schedule, traceSend: firstFailedSend,
            broken: broken)
    }

    /// `frontmail-bench run FILE [--quick] --seed S [--schedule P] [--trace-send N] [--broken NAME]`,
    /// each word quoted for a shell where it needs it (a failed scenario's replay, and an explore
    /// find's).
    static func replayCommand(
        file: String, quick: Bool, seed: UInt64, schedule: Schedule.Policy, traceSend: Int?, broken: String? = nil
    ) -> String {
        var words = ["frontmail-bench", "run", file]
        if quick { words.append(RunOption.quick.spelled) }
        words += [RunOption.seed.spelled, String(seed)]
        if schedule != .fifo { words += [RunOption.schedule.spelled, Schedule.spelled(schedule)] }
        if let traceSend { words += [RunOption.traceSend.spelled, String(traceSend)] }
        if let broken { words += [RunOption.broken.spelled, broken] }
        return words.map(Self.shellQuoted).joined(separator: " ")
    }

    private static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./=:".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `PASS name (n assertions)` or `FAIL name: assertion (actual x)…`.
    public var verdictLine: String {
        if interrupted { return "INTERRUPTED \(scenario.name)" }
        let failed = checks.filter { !$0.passed }
        if failed.isEmpty { return "PASS \(scenario.name) (\(checks.count) assertions)\(budgetText)" }
        let reasons = failed.map { "\($0.assertion.text) (actual \(SummaryCSV.format($0.actual)))" }
        return "FAIL \(scenario.name): " + reasons.joined(separator: "; ") + budgetText
    }
}
