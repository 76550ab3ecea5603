import Foundation
import Testing

@testable import LoadKit

/// `list --metrics` is what users write assertions from, so it must name every metric a run
/// produces, with the unit its row was written in, and the polarity the gate judges it by.
@Suite("the metric listing: every produced metric, its unit and its policy")
struct MetricListingTests {
    @Test("assertion names map to their summary rows")
    func rows() {
        #expect(MetricCatalog.row(of: "send.success_rate") == ("send", "success_rate", "value"))
        #expect(MetricCatalog.row(of: "send.latency.p99.9") == ("send", "latency", "p99.9"))
        #expect(MetricCatalog.row(of: "attempts_per_send.max") == ("send", "attempts_per_send", "max"))
        #expect(MetricCatalog.row(of: "jitter.ks_d.attempt2") == ("jitter", "ks_d", "attempt2"))
        #expect(MetricCatalog.row(of: "cancellation.inFlight.load.p99.9") == ("cancellation", "inFlight.load", "p99.9"))
        #expect(
            MetricCatalog.row(of: "cancellation.raw_urlsession.inFlight.idle.p50")
                == ("cancellation", "raw_urlsession.inFlight.idle", "p50"))
        #expect(MetricCatalog.row(of: "cancellation.soak.growth_per_1k") == ("cancellation", "soak", "growth_per_1k"))
        #expect(MetricCatalog.entry(for: "send.errors.timeout")?.name == "send.errors.<code>")
        #expect(MetricCatalog.entry(for: "jitter.ks_p.attempt12")?.name == "jitter.ks_p.attempt<N>")
        #expect(MetricCatalog.entry(for: "jitter.ks_p.attemptX") == nil)
        #expect(MetricCatalog.entry(for: "send.nonsense") == nil)
    }

    @Test("every metric a load run and the cancellation experiment produce is listed, with its row's unit")
    func everyProducedMetricIsListed() async throws {
        let load = try makeScenario(
            """
            {"name": "all", "timeScale": 0.001, "load": {"type": "closed", "concurrency": 4, "sends": 40},
             "plan": {"rules": [{"match": {"attempt": 1, "everyNth": 2}, "action": {"type": "respond", "status": 503, "retryAfter": 0.001}},
                                {"match": {"attempt": 1, "everyNth": 3}, "action": {"type": "respond", "status": 500}}]}}
            """)
        let cancellation = try makeScenario(
            #"{"name": "c", "timeScale": 0.01, "cancellation": {"phases": ["inFlight", "backoff"], "samples": 2, "backgroundLoad": 2, "soak": 10}}"#
        )
        var checked = 0
        for scenario in [load, cancellation] {
            let result = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
            let units = Dictionary(result.rows.map { ($0.key, $0.unit) }, uniquingKeysWith: { first, _ in first })
            for name in result.metrics.keys.sorted() {
                let entry = MetricCatalog.entry(for: name)
                #expect(entry != nil, "\(name) is produced but not listed")
                let row = MetricCatalog.row(of: name)
                let unit = units["\(row.probe).\(row.metric).\(row.statistic)"]
                #expect(unit != nil, "\(name) has no row \(row)")
                if let entry, let unit {
                    #expect(entry.unit == unit, "\(name): listed in \(entry.unit), written in \(unit)")
                }
                checked += 1
            }
        }
        #expect(checked > 100)
        // The names assertions may use are all listed, and every listed name has a declared policy.
        for name in MetricCatalog.names.values.joined() { #expect(MetricCatalog.entry(for: name) != nil, "\(name)") }
    }

    @Test("the catalog declares each key and each row once, and every name reads back its own row")
    func catalogIsConsistent() {
        let keys = MetricCatalog.all.map(\.key)
        let rows = MetricCatalog.all.map(\.row)
        #expect(Set(keys).count == keys.count, "a key declared twice")
        #expect(Set(rows).count == rows.count, "a row declared twice")
        // A placeholder stands for an example value: `attempt<N>` for attempt3, `<code>` for x1.
        func example(_ pattern: String) -> String {
            pattern.replacingOccurrences(of: "<N>", with: "3").replacingOccurrences(
                of: "<[a-z|]+>", with: "x1", options: .regularExpression)
        }
        for metric in MetricCatalog.all {
            let key = example(metric.key)
            #expect(MetricCatalog.metric(forKey: key) == metric, "\(key)")
            guard let row = metric.row(of: key) else {
                Issue.record("\(key) is not an instance of \(metric.key)")
                continue
            }
            #expect("\(row.probe).\(row.metric).\(row.statistic)" == example(metric.row), "\(key)")
            #expect(
                MetricCatalog.metric(probe: row.probe, metric: row.metric, statistic: row.statistic) == metric,
                "\(metric.row)")
        }
    }

    @Test("a producer records by key: the row, its unit and the metric come from the catalog")
    func recorder() {
        var recorder = MetricRecorder(scenario: "s")
        recorder.record(.sendErrors("timeout"), 2)
        recorder.record(HistogramKey.attemptsPerSend.key("mean"), 1.5)
        recorder.record(HistogramKey.cancellation("inFlight.load").key("p99.9"), 0.3)
        recorder.record(HistogramKey.sendLatency.key("count"), 4)
        #expect(
            recorder.rows.map(\.key) == [
                "send.errors.timeout", "send.attempts_per_send.mean", "cancellation.inFlight.load.p99.9",
                "send.latency.count",
            ])
        #expect(recorder.rows.map(\.unit) == ["sends", "attempts", "ms", "samples"])
        #expect(
            recorder.metrics == [
                "send.errors.timeout": 2, "attempts_per_send.mean": 1.5, "cancellation.inFlight.load.p99.9": 0.3,
            ])
        var histogram = Histogram()
        for value: UInt64 in [1, 2, 3] { histogram.record(value) }
        var attempts = MetricRecorder(scenario: "s")
        attempts.record(histogram, as: .attemptsPerSend, divisor: 1)
        #expect(attempts.rows.map(\.statistic) == ["count", "mean", "p50", "p90", "p99", "p99.9", "max"])
        #expect(
            Set(attempts.metrics.keys) == ["attempts_per_send.mean", "attempts_per_send.p99", "attempts_per_send.max"])
        #expect(attempts.metrics["attempts_per_send.max"] == 3)
        var empty = MetricRecorder(scenario: "s")
        empty.record(Histogram(), as: .sendLatency, divisor: 1e6)
        #expect(empty.rows.map(\.statistic) == ["count"])
        #expect(empty.metrics.count == 5 && empty.metrics.values.allSatisfy(\.isNaN))
    }

    @Test("a metric recorded without a catalog entry is written as a row no policy declares, and no metric")
    func undeclared() {
        var recorder = MetricRecorder(scenario: "s")
        recorder.record(MetricKey("send.retries_saved"), 3)
        recorder.record(Histogram(), as: HistogramKey("send", "queueing", prefix: "send.queueing"), divisor: 1)
        #expect(recorder.metrics.isEmpty)
        #expect(recorder.rows.count == 8)
        #expect(recorder.rows.allSatisfy { MetricPolicies.policy($0) == nil }, "\(recorder.rows.map(\.key))")
    }
}
