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
        #expect(ListCommand.metricListing().allSatisfy { !$0.contains("undeclared") })
        #expect(ListCommand.metricListing().count == MetricCatalog.entries.count + 1)
    }

    @Test("list --metrics prints the catalog; with scenario files it is a usage error")
    func command() {
        #expect(ListCommand.run(["--metrics"]) == .success)
        #expect(ListCommand.run(["--metrics", "scenarios"]) == .usage)
    }
}
