import FakeFrontmail
import Foundation
import Frontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one scenario produced.
public struct ScenarioResult: Sendable {
    public struct Check: Sendable {
        public var assertion: Assertion
        public var passed: Bool
        public var actual: Double
        public var expected: Double
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

/// Runs scenarios: a fresh fake server per scenario, the SDK client, a load driver, the probes.
public struct ScenarioRunner: Sendable {
    public var outputFolder: URL?
    public var runID: String
    public var progress: Bool
    /// Test seams: a random source for the SDK's jitter and a wrapper around the transport, so the
    /// suite's own tests can feed it broken behaviour without touching the SDK.
    var randomOverride: (@Sendable () -> Double)?
    var transportWrapper: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?

    public init(outputFolder: URL?, runID: String, progress: Bool) {
        self.outputFolder = outputFolder
        self.runID = runID
        self.progress = progress
    }

    public func run(_ scenario: Scenario) async throws -> ScenarioResult {
        if scenario.cancellation != nil { return try await runCancellation(scenario) }
        let core = FakeFrontmailCore(config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed)
        let expected = scenario.load.sends ?? 1024
        let history = History(now: { core.now() }, expected: min(expected, 1_000_000))
        let scale = scenario.timeScale
        var server: FakeFrontmailServer?
        var session: URLSession?
        let transport: any FrontmailTransport
        let baseURL: URL
        switch scenario.transport {
        case .inProcess:
            transport = InProcessTransport(core: core)
            baseURL = URL(string: "http://\(scenario.name).fake.invalid")!
        case .socket:
            let started = try FakeFrontmailServer(core: core)
            server = started
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.httpMaximumConnectionsPerHost = scenario.client.maxConnections
            configuration.timeoutIntervalForRequest = max(60, scenario.client.timeout.seconds * scale * 4)
            let urlSession = URLSession(configuration: configuration)
            session = urlSession
            transport = URLSessionTransport(session: urlSession)
            baseURL = started.url
        }
        defer {
            session?.invalidateAndCancel()
            server?.shutdown()
        }
        var environment = SendEnvironment(observer: history)
        if let randomOverride { environment.random = randomOverride }
        let client = try Frontmail(
            publicKey: "pk_bench", apiURL: baseURL, retry: scenario.client.scaledPolicy(scale),
            timeout: scenario.client.timeout.seconds * scale, transport: transportWrapper?(transport) ?? transport,
            environment: environment)
        let factory = PayloadFactory(scenario.payload)
        let explicitKeys = scenario.client.explicitKeys
        let benchID: @Sendable (Int) -> Int = { [scenario] in scenario.benchID($0) }
        let send: @Sendable (Int) async -> Void = { sendID in
            var options = SendOptions(attachments: factory.attachments)
            var variant = 0
            if let explicitKeys {
                options.idempotencyKey = "bench-key-\(sendID % explicitKeys.pool)"
                if !explicitKeys.sameBody { variant = sendID / explicitKeys.pool }
            }
            let params = factory.params(sendID: benchID(sendID), variant: variant)
            history.started(sendID)
            let outcome: History.Outcome = await History.$currentSendID.withValue(sendID) {
                do {
                    let result: SendResult
                    switch params {
                    case .values(let values):
                        result = try await client.send(templateID: "tpl_bench", params: values, options: options)
                    case .encodable(let order):
                        result = try await client.send(templateID: "tpl_bench", params: order, options: options)
                    }
                    return .ok(messageID: result.messageID)
                } catch let error as FrontmailError {
                    return .failed(code: error.code, status: error.status)
                } catch {
                    return .failed(code: .networkError, status: nil)
                }
            }
            history.finished(sendID, outcome)
        }

        let started = core.now()
        let reporter = progress ? ProgressReporter(scenario: scenario, history: history, start: started) : nil
        await withTaskGroup(of: Void.self) { group in
            if let reporter { group.addTask { await reporter.run() } }
            switch scenario.load.kind {
            case .closed: await LoadDriver.closed(scenario.load, history: history, send: send)
            case .open: await LoadDriver.open(scenario.load, history: history, send: send)
            }
            group.cancelAll()
        }
        reporter?.finish()
        let interrupted = Task.isCancelled
        let elapsed = core.now() - started
        return try report(scenario, core: core, history: history, elapsed: elapsed, interrupted: interrupted)
    }

    private func report(
        _ scenario: Scenario, core: FakeFrontmailCore, history: History, elapsed: Double, interrupted: Bool
    ) throws -> ScenarioResult {
        let ledger = LedgerIndex(core.ledger)
        var rows: [SummaryRow] = []
        var metrics: [String: Double] = [:]
        var files: [String: String] = [:]
        var idempotency: IdempotencyProbe?
        if scenario.probes.contains(.outcome) {
            let probe = OutcomeProbe(scenario: scenario, history: history, ledger: ledger, elapsed: elapsed)
            rows += probe.rows
            metrics.merge(probe.metrics) { $1 }
            files["latency_histogram.csv"] = probe.latencyCSV()
        }
        if scenario.probes.contains(.idempotency) {
            let probe = IdempotencyProbe(scenario: scenario, history: history, ledger: ledger)
            rows += probe.rows
            metrics.merge(probe.metrics) { $1 }
            idempotency = probe
        }
        if scenario.probes.contains(.jitter) {
            let probe = JitterProbe(scenario: scenario, history: history, ledger: ledger)
            rows += probe.rows
            metrics.merge(probe.metrics) { $1 }
            files["jitter_samples.csv"] = probe.samplesCSV()
            files["jitter_histogram.csv"] = probe.histogramCSV()
        }
        var run = SummaryBuilder(scenario: scenario.name)
        run.add("run", "elapsed", "value", elapsed, "s")
        run.add("run", "time_scale", "value", scenario.timeScale, "x")
        rows += run.rows
        let checks = scenario.assertions.map { assertion -> ScenarioResult.Check in
            let outcome = assertion.evaluate(metrics)
            return ScenarioResult.Check(
                assertion: assertion, passed: outcome.passed, actual: outcome.actual, expected: outcome.expected)
        }
        var result = ScenarioResult(
            scenario: scenario, rows: rows, metrics: metrics, checks: checks, folder: nil, interrupted: interrupted,
            elapsed: elapsed)
        if let outputFolder {
            let folder = outputFolder.appendingPathComponent("\(runID)-\(scenario.name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            files["summary.csv"] = SummaryCSV.render(rows, runID: runID)
            files["history.csv"] = historyCSV(history, effects: idempotency?.effects ?? [:])
            files["assertions.csv"] = assertionsCSV(checks)
            for (name, text) in files {
                try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            try core.ledger.writeCSV(to: folder.appendingPathComponent("ledger.csv"))
            result.folder = folder
        }
        return result
    }

    /// A cancellation scenario: the probe's phases instead of a load.
    private func runCancellation(_ scenario: Scenario) async throws -> ScenarioResult {
        let started = Date()
        let showProgress = progress
        let probe = try await CancellationProbe(scenario: scenario) { line in
            if showProgress { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }
        }
        let elapsed = Date().timeIntervalSince(started)
        var rows = probe.rows
        var run = SummaryBuilder(scenario: scenario.name)
        run.add("run", "elapsed", "value", elapsed, "s")
        rows += run.rows
        let checks = scenario.assertions.map { assertion -> ScenarioResult.Check in
            let outcome = assertion.evaluate(probe.metrics)
            return ScenarioResult.Check(
                assertion: assertion, passed: outcome.passed, actual: outcome.actual, expected: outcome.expected)
        }
        var result = ScenarioResult(
            scenario: scenario, rows: rows, metrics: probe.metrics, checks: checks, folder: nil,
            interrupted: Task.isCancelled, elapsed: elapsed)
        if let outputFolder {
            let folder = outputFolder.appendingPathComponent("\(runID)-\(scenario.name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try SummaryCSV.render(rows, runID: runID).write(
                to: folder.appendingPathComponent("summary.csv"), atomically: true, encoding: .utf8)
            try assertionsCSV(checks).write(
                to: folder.appendingPathComponent("assertions.csv"), atomically: true, encoding: .utf8)
            result.folder = folder
        }
        return result
    }

    private func historyCSV(_ history: History, effects: [Int: Int]) -> String {
        var text = "send_id,intended_s,started_s,ended_s,verdict,code,status,message_id,attempts,key_changed,effects\n"
        for record in history.records {
            var code = ""
            var status = ""
            var message = ""
            switch record.outcome {
            case .ok(let id): message = id
            case .failed(let failure, let httpStatus):
                code = failure.rawValue
                status = httpStatus.map(String.init) ?? ""
            case .pending, .dropped: break
            }
            text +=
                CSV.line([
                    String(record.sendID), SummaryCSV.format(record.intended), SummaryCSV.format(record.started),
                    SummaryCSV.format(record.ended), record.verdict.rawValue, code, status, message,
                    String(record.attempts),
                    record.keyChanged ? "1" : "0", effects[record.sendID].map(String.init) ?? "",
                ]) + "\n"
        }
        return text
    }

    private func assertionsCSV(_ checks: [ScenarioResult.Check]) -> String {
        var text = "assertion,passed,actual,expected\n"
        for check in checks {
            text +=
                CSV.line([
                    check.assertion.text, check.passed ? "1" : "0", SummaryCSV.format(check.actual),
                    SummaryCSV.format(check.expected),
                ]) + "\n"
        }
        return text
    }
}
