import FakeFrontmail

/// What one experiment measured, before it is judged: summary rows, the metrics assertions read,
/// and the raw material of the results folder.
struct Measurement {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    /// Extra files of the results folder (probe histograms and samples), by name.
    var files: [ResultFile: String] = [:]
    /// The client's history (written as history.csv), with the server's effects per send.
    var history: History?
    var effects: [Int: Int] = [:]
    /// The server's ledger (written as ledger.csv).
    var ledger: AttemptLedger?
    var interrupted = false
    /// Seconds the experiment ran.
    var elapsed = 0.0

    /// Rows measured before the experiment (a calibration's), first in the summary and readable
    /// by assertions.
    mutating func prepend(_ earlier: SummaryBuilder) {
        rows = earlier.rows + rows
        for row in earlier.rows { metrics[row.key] = row.value }
    }

    /// The `run` rows every scenario ends with.
    mutating func addRunRows(scenario: String, timeScale: Double?) {
        var run = SummaryBuilder(scenario: scenario)
        run.add("run", "elapsed", "value", elapsed, "s")
        if let timeScale { run.add("run", "time_scale", "value", timeScale, "x") }
        // Partial results say so, and `compare` refuses to take them for a complete run.
        if interrupted { run.add("run", "interrupted", "value", 1, "runs") }
        rows += run.rows
    }
}
