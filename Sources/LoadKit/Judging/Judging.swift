import FakeFrontmail
import Foundation

// The one judging room: everything that turns what an experiment observed into figures and
// verdicts. An experiment hands over an observation (a load's history and ledger, its control arm's
// figures, its shards'); the figures are assembled here, and the scenario's assertions judged here,
// once per scenario (`Measurement.verdict`), whatever mode ran it.

extension Measurement {
    /// The probes', the time series' and the run's figures of an observed load (one process's, or
    /// the shards' merged): every verdict comes from here. `files`: whether the results folder's
    /// files are rendered too (not for an explored case, which keeps figures only).
    static func judging(_ scenario: Scenario, _ observed: LoadObservation, files: Bool = true) -> Measurement {
        let ledger = observed.ledger ?? AttemptLedger()
        var measurement = Measurement()
        measurement.history = observed.history
        measurement.ledger = ledger
        measurement.interrupted = observed.interrupted
        measurement.elapsed = observed.elapsed
        measurement.simulation = observed.simulation
        let probes = ProbeSet.run(
            scenario, history: observed.history, ledger: LedgerIndex(ledger), elapsed: observed.elapsed, files: files)
        measurement.rows = probes.rows
        measurement.metrics = probes.metrics
        measurement.files = probes.files
        measurement.effects = probes.effects
        measurement.notes = probes.notes
        measurement.addTimeSeries(scenario, observed, ledger: ledger, file: files)
        if let payload = observed.payload {
            var recorder = MetricRecorder(scenario: scenario.name)
            recorder.record(.payloadChecked, Double(payload.checked))
            recorder.record(.payloadMismatches, Double(payload.mismatches))
            measurement.rows += recorder.rows
            measurement.metrics.merge(recorder.metrics) { $1 }
            if let first = payload.first {
                measurement.notes.append("  payload: \(payload.mismatches) bodies differ; first: \(first)")
            }
        }
        measurement.addRunRows(scenario: scenario.name, timeScale: scenario.timeScale)
        return measurement
    }

    /// `timeseries.csv` and the `timeseries.*` figures of every load, and the verdict of a
    /// `metastability` section.
    mutating func addTimeSeries(_ scenario: Scenario, _ observed: LoadObservation, ledger: AttemptLedger, file: Bool) {
        let history = observed.history
        let series = TimeSeries(
            TimeSeries.Input(
                width: scenario.timeScale, records: history.records, ledger: ledger.records,
                attemptBuckets: history.attemptBuckets, capacity: observed.capacity,
                model: scenario.scaledPlan.capacity, end: observed.end))
        if file { files[.timeseries] = series.csv }
        let summary = series.summary(scenario: scenario.name)
        rows += summary.rows
        metrics.merge(summary.metrics) { $1 }
        guard let settings = scenario.metastability, let (trigger, restore) = settings.resolved(plan: scenario.plan)
        else { return }
        let judged = series.metastability(settings, trigger: trigger, restore: restore)
        var recorder = MetricRecorder(scenario: scenario.name)
        for (name, value) in judged { recorder.record(name, value) }
        rows += recorder.rows
        metrics.merge(recorder.metrics) { $1 }
    }
}

extension Measurement {
    /// The control arm's figures, and what the SDK dropped beyond it (`control.*`).
    mutating func addControl(_ control: ControlFigures, scenario: String) {
        var recorder = MetricRecorder(scenario: scenario)
        recorder.record(.controlSends, Double(control.sends))
        recorder.record(.controlOk, Double(control.ok))
        recorder.record(.controlFailed, Double(control.failed))
        recorder.record(.controlDropped, Double(control.dropped))
        recorder.record(.controlDropRate, control.dropRate)
        recorder.record(.controlThroughput, control.throughput)
        recorder.record(control.latency, as: .controlLatency, divisor: 1e6)
        let dropped = metrics[.sendDropped] ?? .nan
        let arrivals = (metrics[.sendSends] ?? .nan) + dropped
        recorder.record(.controlExcessDropRate, (arrivals > 0 ? dropped / arrivals : .nan) - control.dropRate)
        prepend(recorder)
    }
}

extension Measurement {
    /// `run.shards`: how many processes the merged run had; with `--workers`, `run.peak_memory`:
    /// the peak resident memory of every process added up (MB), and per million sends.
    mutating func addShardRows(scenario: String, shards: Int, peakBytes: Int? = nil) {
        var run = MetricRecorder(scenario: scenario)
        run.record(.runShards, Double(shards))
        if let peakBytes {
            let megabytes = Double(peakBytes) / 1_048_576
            run.record(.runPeakMemory, megabytes)
            let sends = history.map { Double($0.records.count) } ?? 0
            if sends > 0 { run.record(.runPeakMemoryPerMillionSends, megabytes / sends * 1e6) }
        }
        rows += run.rows
    }
}

extension Measurement {
    /// The scenario's assertions judged against the figures, after the run's wall-clock rows:
    /// the one judging of a scenario, for every run mode (one process, a child, merged shards).
    mutating func verdict(_ scenario: Scenario) -> [AssertionCheck] {
        addWallRows(scenario: scenario.name, budget: scenario.wallBudget?.seconds)
        return AssertionCheck.judge(scenario.assertions, metrics)
    }
}

extension AssertionCheck {
    /// Every assertion evaluated against the metrics, in order.
    static func judge(_ assertions: [Assertion], _ metrics: [String: Double]) -> [AssertionCheck] {
        assertions.map { assertion in
            let outcome = assertion.evaluate(metrics)
            return AssertionCheck(
                assertion: assertion, passed: outcome.passed, actual: outcome.actual, expected: outcome.expected)
        }
    }
}
