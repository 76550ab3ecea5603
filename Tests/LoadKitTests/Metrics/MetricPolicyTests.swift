import Foundation
import Testing

@testable import LoadKit

/// The gate judges every metric the suite writes, by one catalog.
@Suite("metric policies: every written metric is declared and judged")
struct MetricPolicyTests {
    static func row(_ probe: String, _ metric: String, _ statistic: String, _ value: Double) -> SummaryRow {
        SummaryRow(scenario: "s", probe: probe, metric: metric, statistic: statistic, value: value, unit: "u")
    }

    static func judge(_ baseline: SummaryRow, _ current: SummaryRow?, strictOnly: Bool = false) -> Comparison.Verdict? {
        Comparison(
            baseline: [baseline], current: current.map { [$0] } ?? [], tolerance: 0.05, perMetric: [],
            strictOnly: strictOnly
        ).lines.first?.verdict
    }

    @Test("a scenario run, the cancellation experiment and the committed baselines write only declared metrics")
    func everyMetricIsDeclared() async throws {
        var rows: [SummaryRow] = []
        let load = try makeScenario(
            """
            {"name": "all", "timeScale": 0.001, "load": {"type": "closed", "concurrency": 4, "sends": 40},
             "plan": {"rules": [{"match": {"attempt": 1, "everyNth": 2}, "action": {"type": "respond", "status": 503, "retryAfter": 0.001}},
                                {"match": {"attempt": 1, "everyNth": 3}, "action": {"type": "respond", "status": 500}}]}}
            """)
        rows += try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(load).rows
        let cancellation = try makeScenario(
            #"{"name": "c", "timeScale": 0.01, "cancellation": {"phases": ["inFlight"], "samples": 2, "backgroundLoad": 2, "soak": 1}}"#
        )
        rows += try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(cancellation).rows
        var raw = CancellationLatency.Result(client: .rawURLSession, phase: .inFlight, backgroundLoad: 0)
        raw.latency.record(0.001, scale: 1e9)
        rows += CancellationLatency.report([raw], scenario: "c").rows
        var interrupted = Measurement()
        interrupted.interrupted = true
        interrupted.addRunRows(scenario: "i", timeScale: 1)
        rows += interrupted.rows
        let baselines = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Benchmarks/baselines")
        for name in try FileManager.default.contentsOfDirectory(atPath: baselines.path) where name.hasSuffix(".csv") {
            rows += try SummaryCSV.parse(String(contentsOf: baselines.appendingPathComponent(name), encoding: .utf8))
                .rows
        }
        #expect(rows.count > 200)
        let undeclared = Set(rows.filter { MetricPolicies.policy($0) == nil }.map(\.key))
        #expect(undeclared.isEmpty, "undeclared: \(undeclared.sorted())")
    }

    @Test("cancellation: attempts after a cancel, the aborted ratio and its latency are judged")
    func cancellationIsJudged() {
        let cell = "inFlight.load"
        #expect(
            Self.judge(
                Self.row("cancellation", cell, "attempts_after_cancel", 0),
                Self.row("cancellation", cell, "attempts_after_cancel", 7)) == .regression)
        #expect(
            Self.judge(
                Self.row("cancellation", cell, "aborted_ratio", 1), Self.row("cancellation", cell, "aborted_ratio", 0.1)
            ) == .regression)
        #expect(
            Self.judge(Self.row("cancellation", cell, "p99", 0.4), Self.row("cancellation", cell, "p99", 5000))
                == .regression)
        #expect(
            Self.judge(Self.row("cancellation", cell, "p99", 0.4), Self.row("cancellation", cell, "p99", 0.41))
                == .unchanged)
        #expect(
            Self.judge(
                Self.row("cancellation", "live_requests_after", "value", 0),
                Self.row("cancellation", "live_requests_after", "value", 3), strictOnly: true) == .regression)
        // The raw URLSession baseline is context, not a verdict on the SDK.
        #expect(
            Self.judge(
                Self.row("cancellation", "raw_urlsession.inFlight.load", "p99", 1),
                Self.row("cancellation", "raw_urlsession.inFlight.load", "p99", 900)) == nil)
    }

    @Test("a strict count that turns negative is a regression, never unchanged or an improvement")
    func negativeCounts() {
        let row = { (value: Double) in Self.row("idempotency", "duplicates", "value", value) }
        #expect(Self.judge(row(0), row(-1)) == .regression)
        #expect(Self.judge(row(2), row(-2)) == .regression)
        #expect(Self.judge(row(0), row(-1), strictOnly: true) == .regression)
        // What a correct run can show: fewer defects, the same, more.
        #expect(Self.judge(row(2), row(1)) == .improvement)
        #expect(Self.judge(row(0), row(0)) == .unchanged)
        #expect(Self.judge(row(0), row(1)) == .regression)
        // A metric that may be negative (a difference against a control) is judged as before.
        let excess = { (value: Double) in Self.row("control", "excess_drop_rate", "value", value) }
        #expect(Self.judge(excess(0.01), excess(-0.01)) != .regression)
    }

    @Test("a correctness metric that becomes n/a is a regression; a timing one is a warning")
    func unavailable() {
        #expect(
            Self.judge(
                Self.row("idempotency", "duplicates", "value", 0), Self.row("idempotency", "duplicates", "value", .nan))
                == .regression)
        let timing = Comparison(
            baseline: [Self.row("send", "latency", "p99", 3)], current: [Self.row("send", "latency", "p99", .nan)],
            tolerance: 0.05, perMetric: [])
        #expect(timing.lines.first?.verdict == .notAvailable)
        #expect(timing.regressions.isEmpty)
        #expect(timing.markdown().contains("warning: 1 metrics were measured in the baseline and are n/a now"))
    }

    @Test("an interrupted run is a regression against any baseline")
    func interrupted() {
        let comparison = Comparison(
            baseline: [Self.row("send", "ok", "value", 1)],
            current: [Self.row("send", "ok", "value", 1), Self.row("run", "interrupted", "value", 1)], tolerance: 0.05,
            perMetric: [], strictOnly: true)
        #expect(comparison.regressions.map(\.key) == ["s.run.interrupted.value"])
    }

    @Test("a summary of another schema version, or without one, is refused")
    func schemaVersion() {
        let header = SummaryCSV.header
        #expect(throws: CSVError.self) { try SummaryCSV.parse(header + "\n2,r,s,send,ok,value,1,sends\n") }
        #expect(throws: CSVError.self) {
            try SummaryCSV.parse("run_id,scenario,probe,metric,statistic,value,unit\nr,s,send,ok,value,1,sends\n")
        }
        #expect((try? SummaryCSV.parse(header + "\n1,r,s,send,ok,value,1,sends\n"))?.rows.count == 1)
    }
}
