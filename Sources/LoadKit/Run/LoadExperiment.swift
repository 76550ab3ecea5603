import FakeFrontmail
import Foundation
import Frontmail

/// A load: a fresh fake behind the scenario's front end, the SDK client, a load driver issuing
/// logical sends, then the scenario's probes over the history and the ledger.
struct LoadExperiment {
    let scenario: Scenario
    let progress: Bool
    var randomOverride: (@Sendable () -> Double)?
    var transportWrapper: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?
    var policyOverride: RetryPolicy?
    var timeoutOverride: TimeInterval?
    var observerWrapper: (@Sendable (any SendObserver) -> any SendObserver)?

    init(scenario: Scenario, progress: Bool) {
        self.scenario = scenario
        self.progress = progress
    }

    func run() async throws -> Measurement {
        var scenario = scenario
        var calibration = SummaryBuilder(scenario: scenario.name)
        if let calibrated = scenario.load.calibratedRate {
            let throughput = try await Calibration.measure(calibrated.of, scenario: scenario)
            let rate = min(
                LoadSettings.rates.upperBound, max(LoadSettings.rates.lowerBound, calibrated.fraction * throughput))
            scenario.load.rate = rate
            let name = calibrated.of.metricName
            calibration.add("calibration", name, "throughput", throughput, "sends/s")
            calibration.add("calibration", name, "window", Calibration.window, "s")
            calibration.add("calibration", "load", "fraction", calibrated.fraction, "ratio")
            calibration.add("calibration", "load", "rate", rate, "sends/s")
            if progress {
                printError(
                    String(
                        format: "  calibration: %@ %.0f sends/s; load at %.0f%%: %.0f sends/s", name, throughput,
                        calibrated.fraction * 100, rate))
            }
        }
        var measurement = try await runLoad(scenario)
        measurement.rows = calibration.rows + measurement.rows
        for row in calibration.rows { measurement.metrics[row.key] = row.value }
        return measurement
    }

    private func runLoad(_ scenario: Scenario) async throws -> Measurement {
        let scale = scenario.timeScale
        let core = FakeFrontmailCore(
            config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed, seriesWidth: scale)
        // What the driver and the progress line see: a policy-time load in real time.
        var running = scenario
        running.load = scenario.load.running(timeScale: scale)
        let session = FakeFrontmailHarness.SessionOptions(
            maxConnections: scenario.client.maxConnections,
            requestTimeout: max(60, scenario.client.timeout.seconds * scale * 4))
        return try await withFakeFrontmail(frontEnd: scenario.transport, core: core, session: session) { harness in
            let history = History(
                now: { core.now() }, expected: min(scenario.load.sends ?? 1024, 1_000_000), bucketWidth: scale)
            var environment = SendEnvironment(observer: observerWrapper?(history) ?? history)
            if let randomOverride { environment.random = randomOverride }
            let client = try harness.client(
                retry: policyOverride ?? scenario.client.scaledPolicy(scale),
                timeout: timeoutOverride ?? scenario.client.timeout.seconds * scale,
                environment: environment, wrap: { transportWrapper?($0) ?? $0 })
            let send = LogicalSend(scenario: scenario, client: client, history: history)

            let started = core.now()
            let reporter = progress ? ProgressReporter(scenario: running, history: history, start: started) : nil
            await withTaskGroup(of: Void.self) { group in
                if let reporter { group.addTask { await reporter.run() } }
                await LoadDriver.run(running.load, history: history, send: send.callAsFunction)
                group.cancelAll()
            }
            reporter?.finish()
            var measurement = Measurement()
            measurement.history = history
            measurement.ledger = core.ledger
            measurement.interrupted = Task.isCancelled
            measurement.elapsed = core.now() - started
            let probes = ProbeSet.run(
                scenario, history: history, ledger: LedgerIndex(core.ledger), elapsed: measurement.elapsed)
            measurement.rows = probes.rows
            measurement.metrics = probes.metrics
            measurement.files = probes.files
            measurement.effects = probes.effects
            measurement.addTimeSeries(scenario, core: core, history: history)
            measurement.addRunRows(scenario: scenario.name, timeScale: scale)
            return measurement
        }
    }
}

extension Measurement {
    /// `timeseries.csv` and the `timeseries.*` figures of every load, and the verdict of a
    /// `metastability` section.
    mutating func addTimeSeries(_ scenario: Scenario, core: FakeFrontmailCore, history: History) {
        let series = TimeSeries(
            TimeSeries.Input(
                width: scenario.timeScale, records: history.records, ledger: core.ledger.records,
                attemptBuckets: history.attemptBuckets, capacity: core.capacitySeries, model: core.plan.capacity,
                end: core.now()))
        files["timeseries.csv"] = series.csv
        let summary = series.summary(scenario: scenario.name)
        rows += summary.rows
        metrics.merge(summary.metrics) { $1 }
        guard let settings = scenario.metastability, let (trigger, restore) = settings.resolved(plan: scenario.plan)
        else { return }
        let judged = series.metastability(settings, trigger: trigger, restore: restore)
        var builder = SummaryBuilder(scenario: scenario.name)
        for (name, value, unit) in judged {
            builder.add("metastability", name, "value", value, unit)
            metrics["metastability.\(name)"] = value
        }
        rows += builder.rows
    }
}
