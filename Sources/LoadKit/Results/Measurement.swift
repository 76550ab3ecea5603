import FakeFrontmail
import Simulator

/// What one experiment measured, before it is judged: summary rows, the metrics assertions read,
/// and the raw material of the results folder.
package struct Measurement {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    /// Extra files of the results folder (probe histograms and samples), by name.
    var files: [ResultFile: String] = [:]
    /// The client's history (written as history.csv), with the server's effects per send.
    package var history: History?
    var effects: [Int: Int] = [:]
    /// The server's ledger (written as ledger.csv).
    package var ledger: AttemptLedger?
    var interrupted = false
    /// Seconds the experiment ran (virtual seconds on virtual time).
    var elapsed = 0.0
    /// What the simulation cost, when the run was on virtual time.
    var simulation: Simulation.Figures?
    /// Wall seconds from the scenario's start to its measurement (nil for shards merged: no one
    /// process ran them).
    var wallSeconds: Double?
    /// Lines about what the judging found first (a budget's first wrong decision, a body that
    /// differs), printed by a run that shows its progress.
    var notes: [String] = []

    /// Rows measured before the experiment (a calibration's), first in the summary and readable
    /// by assertions.
    mutating func prepend(_ earlier: MetricRecorder) {
        rows = earlier.rows + rows
        metrics.merge(earlier.metrics) { $1 }
    }

    /// The `run` rows every scenario ends with.
    mutating func addRunRows(scenario: String, timeScale: Double?) {
        var run = MetricRecorder(scenario: scenario)
        run.record(.runElapsed, elapsed)
        if let timeScale { run.record(.runTimeScale, timeScale) }
        if let simulation {
            // Wall-clock rows: the only ones of a virtual run that differ between runs.
            run.record(.runWallSpeed, simulation.speed)
        }
        // Partial results say so, and `compare` refuses to take them for a complete run.
        if interrupted { run.record(.runInterrupted, 1) }
        rows += run.rows
    }

    /// The wall-time rows, once the scenario's measurement is complete: `run.wall_elapsed` (the
    /// runner's wall seconds, or the simulation's), and with a budget `run.wall_budget` and
    /// `run.over_budget` (1 when the scenario took longer).
    mutating func addWallRows(scenario: String, budget: Double?) {
        guard let wall = wallSeconds ?? simulation?.wallSeconds else { return }
        var run = MetricRecorder(scenario: scenario)
        run.record(.runWallElapsed, wall)
        if let budget {
            run.record(.runWallBudget, budget)
            run.record(.runOverBudget, wall > budget ? 1 : 0)
        }
        rows += run.rows
    }
}
