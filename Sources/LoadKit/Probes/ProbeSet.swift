import FakeFrontmail

/// Runs a scenario's probes over what happened: the client's history and the server's ledger.
enum ProbeSet {
    struct Output {
        var rows: [SummaryRow] = []
        var metrics: [String: Double] = [:]
        /// Files for the results folder, by name.
        var files: [ResultFile: String] = [:]
        /// Server-side effects per send (from the idempotency probe), for history.csv.
        var effects: [Int: Int] = [:]
        /// Lines about what a probe found first, for a run that shows its progress.
        var notes: [String] = []
    }

    /// `files`: whether the probes' files are rendered (a run's results folder holds them; an
    /// explored case's figures are all it keeps).
    static func run(
        _ scenario: Scenario, history: History, ledger: LedgerIndex, elapsed: Double, files: Bool = true
    ) -> Output {
        var output = Output()
        if scenario.probes.contains(.outcome) {
            let probe = OutcomeProbe(scenario: scenario, history: history, ledger: ledger, elapsed: elapsed)
            output.add(probe.rows, probe.metrics)
            if files {
                output.files[.latencyHistogram] = probe.latencyCSV()
                output.files[.latencyHgrm] = HgrmWriter.render(probe.latency, divisor: 1e6)
            }
        }
        if scenario.probes.contains(.idempotency) {
            let probe = IdempotencyProbe(scenario: scenario, history: history, ledger: ledger)
            output.add(probe.rows, probe.metrics)
            output.effects = probe.effects
        }
        if scenario.probes.contains(.jitter) {
            let probe = JitterProbe(scenario: scenario, history: history, ledger: ledger)
            output.add(probe.rows, probe.metrics)
            if files {
                output.files[.jitterSamples] = probe.samplesCSV()
                output.files[.jitterHistogram] = probe.histogramCSV()
            }
        }
        if BudgetReplay.applies(to: scenario) {
            let replay = BudgetReplay(scenario: scenario, ledger: ledger)
            var recorder = MetricRecorder(scenario: scenario.name)
            replay.record(into: &recorder)
            output.add(recorder.rows, recorder.metrics)
            if let first = replay.firstViolation {
                output.notes.append("  budget: \(replay.violations) violations; first: \(first)")
            }
        }
        if scenario.status != nil {
            let probe = StatusProbe(scenario: scenario, book: history.statusReads, ledger: ledger)
            output.add(probe.rows, probe.metrics)
        }
        return output
    }
}

extension ProbeSet.Output {
    fileprivate mutating func add(_ rows: [SummaryRow], _ metrics: [String: Double]) {
        self.rows += rows
        self.metrics.merge(metrics) { $1 }
    }
}
