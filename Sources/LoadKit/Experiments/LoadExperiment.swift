import FakeFrontmail
import Foundation
import Frontmail
import Simulator
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A load: a fresh fake behind the scenario's front end, the SDK client, a load driver issuing
/// logical sends, then the scenario's probes over the history and the ledger.
struct LoadExperiment {
    let scenario: Scenario
    let progress: Bool
    /// Where progress goes instead of stderr (a shard of a `--workers` run: to its parent).
    var progressSink: ProgressReporter.Sink?
    /// The suite's own tests' seeded or broken behaviour (nil fields in every run of the tool).
    var seams = TestSeams()
    /// On virtual time: the order of the jobs ready at once (`--schedule`; fifo unless asked).
    var schedule: Schedule.Policy = .fifo
    /// On virtual time: how long (real seconds) a run whose every task waits with nothing timed
    /// may wait for a job from outside before it is called deadlocked (`Simulation.run`).
    var stallGrace: TimeInterval = 2
    /// Whether the results folder's files (histograms, samples, the time series) are rendered: an
    /// explored case keeps its figures only.
    var rendersFiles = true

    init(scenario: Scenario, progress: Bool) {
        self.scenario = scenario
        self.progress = progress
    }

    func run() async throws -> Measurement {
        let (scenario, calibration) = try await Self.calibrate(scenario, processes: 1, progress: progress)
        var measurement = try await Self.withControl(scenario, share: 1, progress: progress) {
            try await runLoad(scenario)
        }
        measurement.prepend(calibration)
        return measurement
    }

    /// `load`, with the scenario's control arm (if it has one) running beside it; its figures join
    /// the measurement. `share`: how many processes run the SDK's load (the arm runs one's worth).
    static func withControl(
        _ scenario: Scenario, share: Int, progress: Bool, _ load: () async throws -> Measurement
    ) async throws -> Measurement {
        guard scenario.load.control != nil else { return try await load() }
        async let control = ControlArm.run(
            scenario.load.running(timeScale: scenario.timeScale), scenario: scenario, share: share)
        var measurement = try await load()
        let arm = try await control
        measurement.addControl(arm, scenario: scenario.name)
        if progress {
            printError(
                String(
                    format: "  control: raw URLSession dropped %d of %d (%.2f%%); the SDK %.2f%% more", arm.dropped,
                    arm.sends, arm.dropRate * 100, (measurement.metrics[.controlExcessDropRate] ?? .nan) * 100))
        }
        return measurement
    }

    /// A calibrated open loop gets its rate: the fraction of what the reference sustains in one
    /// process, times `processes` (a `--workers` run has that many clients like the one measured).
    /// The calibration's summary rows say what was measured.
    static func calibrate(_ scenario: Scenario, processes: Int, progress: Bool) async throws -> (
        Scenario, MetricRecorder
    ) {
        var scenario = scenario
        var calibration = MetricRecorder(scenario: scenario.name)
        guard let calibrated = scenario.load.calibratedRate else { return (scenario, calibration) }
        let throughput = try await Calibration.measure(calibrated.of, scenario: scenario)
        let rate = min(
            LoadSettings.rates.upperBound,
            max(LoadSettings.rates.lowerBound, calibrated.fraction * throughput * Double(processes)))
        scenario.load.rate = rate
        scenario.load.calibratedRate = nil
        let name = calibrated.of.metricName
        calibration.record(.calibrationThroughput(name), throughput)
        calibration.record(.calibrationWindow(name), Calibration.window)
        calibration.record(.calibrationLoadFraction, calibrated.fraction)
        if processes > 1 { calibration.record(.calibrationLoadProcesses, Double(processes)) }
        calibration.record(.calibrationLoadRate, rate)
        if progress {
            printError(
                String(
                    format: "  calibration: %@ %.0f sends/s; load at %.0f%%%@: %.0f sends/s", name, throughput,
                    calibrated.fraction * 100, processes > 1 ? " × \(processes) processes" : "", rate))
        }
        return (scenario, calibration)
    }

    private func runLoad(_ scenario: Scenario) async throws -> Measurement {
        let observed = try await observe(scenario, shard: .whole)
        let files = rendersFiles
        let measurement = await offThePool(observed) { Measurement.judging(scenario, $0, files: files) }
        if progress { measurement.notes.forEach(printError) }
        return measurement
    }

    /// Runs the load (or the shard's part of it) and keeps what happened, unjudged. With `server`,
    /// the sends go over sockets to that shared fake (its ledger is the server's to keep).
    func observe(_ scenario: Scenario, shard: Shard, server: URL? = nil) async throws -> LoadObservation {
        if let server { return try await observeRemote(scenario, shard: shard, server: server) }
        guard scenario.clock == .virtual else { return try await observeLocal(scenario, shard: shard, clock: nil) }
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
            throw InputError(path: "clock", reason: "virtual time needs task executors (macOS 15 or later)")
        }
        let (observed, figures) = try await Simulation.run(
            schedule: Self.schedule(schedule, for: scenario), advanceEvery: seams.simulationAdvanceEvery,
            stallGrace: stallGrace
        ) { clock in
            try await observeLocal(scenario, shard: shard, clock: clock)
        }
        var observation = observed
        observation.simulation = figures
        return observation
    }

    /// The load against a fake in this process, on the system clock (`clock` nil) or a
    /// simulation's (then the client's jitter and keys come from the scenario's seed too).
    private func observeLocal(
        _ scenario: Scenario, shard: Shard, clock: (any FrontmailScheduler)?
    ) async throws -> LoadObservation {
        let payload = scenario.payload == .fidelity ? PayloadFidelity(scenario) : nil
        let core = FakeFrontmailCore(
            config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed, seriesWidth: scenario.timeScale,
            numbering: shard.numbering, clock: clock ?? SystemClock(), inspectSend: payload.map { $0.inspect })
        let session = Self.sessionOptions(scenario)
        return try await withFakeFrontmail(frontEnd: scenario.transport, core: core, session: session) { harness in
            var observed = try await observeClients(
                scenario, shard: shard, now: { core.now() }, clock: core.clock, simulated: clock,
                wallStart: core.wallStart, apiURL: harness.baseURL, transport: harness.transport)
            observed.ledger = core.ledger
            observed.capacity = core.capacitySeries
            observed.payload = payload?.figures
            return observed
        }
    }

    /// The load against a fake in another process (`server`): the ledger is that server's to keep.
    private func observeRemote(_ scenario: Scenario, shard: Shard, server: URL) async throws -> LoadObservation {
        let startNanos = DispatchTime.now().uptimeNanoseconds
        let wallStart = Date()
        let now: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds &- startNanos) / 1e9 }
        return try await withHarnessSession(Self.sessionOptions(scenario)) { _, transport in
            try await observeClients(
                scenario, shard: shard, now: now, clock: SystemClock(), simulated: nil, wallStart: wallStart,
                apiURL: server, transport: transport)
        }
    }

    /// The one body of a load's client side, wherever its server is: the history, one SDK client
    /// per `client.instances` (each with its own retry budget) on `transport`, the driver. On a
    /// simulation's clock (`simulated`), the clients run on it and draw from the scenario's seed.
    private func observeClients(
        _ scenario: Scenario, shard: Shard, now: @escaping @Sendable () -> Double, clock: any FrontmailScheduler,
        simulated: (any FrontmailScheduler)?, wallStart: Date, apiURL: URL, transport: any FrontmailTransport
    ) async throws -> LoadObservation {
        let scale = scenario.timeScale
        let history = History(
            now: now, expected: min(scenario.load.sends ?? 1024, 1_000_000), bucketWidth: scale, shard: shard)
        var environment = environment(history)
        if let simulated {
            environment.clock = seams.clockWrapper?(simulated) ?? simulated
            if seams.entropy == nil {
                let random = SharedRandom(seed: Fingerprint.of("client:\(scenario.seed):\(shard)".utf8))
                environment.entropy = { random.next() }
                environment = seams.mappingDraws(of: environment)
            }
        } else if let wrapper = seams.clockWrapper {
            // A broken client's clock runs on the real clock too (`explore --transport socket`).
            environment.clock = wrapper(environment.clock)
        }
        let clients = try (0..<scenario.client.instances).map { _ in
            try Frontmail(
                publicKey: "pk_bench", apiURL: apiURL,
                retry: seams.policyOverride ?? seams.policyDefect.map { $0(scenario.client.scaledPolicy(scale)) }
                    ?? scenario.client.scaledPolicy(scale),
                timeout: seams.timeoutOverride ?? scenario.client.timeout.seconds * scale,
                transport: wrapTransport(transport, scenario, history, clock: clock), environment: environment)
        }
        let started = now()
        await drive(scenario, history: history, clients: clients, start: started, clock: clock)
        return LoadObservation(
            history: history, ledger: nil, capacity: nil, wallStart: wallStart, end: now(), elapsed: now() - started,
            interrupted: Task.isCancelled)
    }

    /// The harness session of a scenario's client: its connection limit, and URLSession's own
    /// timeout well past any attempt's.
    static func sessionOptions(_ scenario: Scenario) -> FakeFrontmailHarness.SessionOptions {
        FakeFrontmailHarness.SessionOptions(
            maxConnections: scenario.client.maxConnections,
            requestTimeout: max(60, scenario.client.timeout.seconds * scenario.timeScale * 4))
    }

    /// The SDK's transport as the scenario needs it: with the bench id in a header when bodies carry
    /// none (`identical`), each status read's number in one (`status`), then a test's wrapper.
    private func wrapTransport(
        _ transport: any FrontmailTransport, _ scenario: Scenario, _ history: History, clock: any FrontmailScheduler
    ) -> any FrontmailTransport {
        var wrapped = transport
        if scenario.payload == .identical {
            wrapped = BenchIDHeaderTransport(inner: wrapped) { scenario.benchID(history.number($0)) }
        }
        if scenario.status != nil {
            wrapped = StatusReadTagTransport(inner: wrapped, book: history.statusReads, clock: clock)
        }
        return seams.wrapsTransport?(wrapped) ?? wrapped
    }

    private func environment(_ history: History) -> SendEnvironment {
        seams.apply(to: SendEnvironment(observer: seams.observerWrapper?(history) ?? history))
    }

    /// The load driver with the progress line beside it.
    private func drive(
        _ scenario: Scenario, history: History, clients: [Frontmail], start: Double, clock: any FrontmailScheduler
    ) async {
        // What the driver and the progress line see: a policy-time load in real time.
        var running = scenario
        running.load = scenario.load.running(timeScale: scenario.timeScale)
        let send = LogicalSend(scenario: scenario, clients: clients, history: history, clock: clock)
        let reporter =
            progress || progressSink != nil
            ? ProgressReporter(scenario: running, history: history, start: start, sink: progressSink) : nil
        reporter?.begin()
        await LoadDriver.run(running.load, history: history, clock: clock, send: send.callAsFunction)
        reporter?.finish()
    }
}

/// One seeded source of the random bits a simulated client's jitter and keys are made from (a simulation runs on one
/// thread, so the order of draws is the run's own).
final class SharedRandom: Sendable {
    private let state: Mutex<SeededRandom>

    init(seed: UInt64) {
        state = Mutex(SeededRandom(seed: seed))
    }

    /// The next 64 random bits: the client turns them into its draws and keys itself.
    func next() -> UInt64 {
        state.withLock { $0.next() }
    }
}

extension LoadExperiment {
    /// The run's schedule: `policy` seeded from the scenario's seed (so `run FILE --seed S
    /// --schedule P` replays one order), PCT's change points drawn over the run's expected jobs.
    static func schedule(_ policy: Schedule.Policy, for scenario: Scenario) -> Schedule {
        var random = SeededRandom(seed: scenario.seed, mixing: 0x5C4E_D01E)
        return Schedule(policy: policy, seed: random.next(), steps: expectedJobs(scenario))
    }

    /// About how many jobs a run of `scenario` takes on virtual time: `jobsPerSend` for each send
    /// the load plans (the measured mean over explore's cases), at least 100.
    static func expectedJobs(_ scenario: Scenario) -> Int {
        let load = scenario.load
        let planned: Double
        switch load.kind {
        case .closed:
            planned = Double(load.sends ?? load.concurrency)
        case .open:
            planned =
                load.stages.isEmpty
                ? load.rate * (load.duration?.seconds ?? 0)
                : load.stages.reduce(0) { $0 + $1.rate * $1.duration.seconds }
        }
        let sends = min(max(planned, 1), Double(LoadSettings.maxSends))
        return max(100, Int(sends * jobsPerSend))
    }

    /// Jobs per planned send: 10.7 over 400 of explore's generated cases (seed 3; `Simulation.Figures.jobs`).
    static let jobsPerSend = 10.0
}
