import Foundation
import Testing

@testable import LoadKit

/// Metric keys end to end: a sweep's rows and a crash row are declared with their policies, and a
/// reader of a figure every load records fails loudly, naming it, when the producer did not write it.
@Suite("metric keys: declared rows, loud readers")
struct MetricKeyTests {
    @Test("a sweep's rows are declared with their policies, a policy label with dots included")
    func sweepRows() {
        var recorder = MetricRecorder(scenario: "t/brownout")
        let label = "r3-b1.5s-m10s-t15s"
        for statistic in CellStatistic.allCases { recorder.record(.cell(statistic), label: label, 1) }
        recorder.record(.regret(.sendsLostPer10k, against: RegretBaseline.best.rawValue), label: label, 2)
        recorder.record(.ruleSingleWinner, 1)
        recorder.record(.sanityDuplicates, 0)
        recorder.record(.tuneSendsPerWallSecond, 100)
        recorder.record(.runCrashSignal, 11)
        let rows = recorder.rows
        #expect(rows.allSatisfy { $0.unit != "?" }, "\(rows.filter { $0.unit == "?" }.map(\.key))")
        #expect(rows.first?.metric == label && rows.first?.statistic == "success_rate")
        let policy = { (probe: String, statistic: String) in
            rows.first { $0.probe == probe && $0.statistic == statistic }.flatMap(MetricPolicies.policy)
        }
        #expect(policy("cell", "duplicates") == .mustNotGrow)
        #expect(policy("cell", "lost") == .mustNotGrow)
        #expect(policy("cell", "success_rate") == .higher)
        #expect(policy("cell", "latency_p99.9") == .lower)
        #expect(policy("cell", "sends") == .info)
        #expect(policy("regret_vs_best", "sends_lost_per_10k") == .info)
        #expect(policy("rule", "single_winner") == .higher)
        #expect(policy("sanity", "duplicates") == .mustNotGrow)
        #expect(policy("tune", "sends_per_wall_s") == .absoluteHigher)
        #expect(policy("run", "signal") == .mustNotGrow)
    }

    @Test("a crash row is a regression against a run without one")
    func crashIsJudged() {
        var recorder = MetricRecorder(scenario: "s")
        recorder.record(.runCrashSignal, 11)
        var baseline = MetricRecorder(scenario: "s")
        baseline.record(.runCrashSignal, 0)
        let comparison = Comparison(
            baseline: baseline.rows, current: recorder.rows, tolerance: 0.05, perMetric: [], strictOnly: true)
        #expect(comparison.regressions.map(\.key) == ["s.run.crash.signal"])
    }

    /// A measurement as a correct load leaves it, and one whose producer lost a metric.
    static func measurement(without missing: MetricKey? = nil) -> LoadKit.Measurement {
        var measurement = LoadKit.Measurement()
        for key in [MetricKey.loadServerRequests, .idempotencyDuplicates, .idempotencyLost, .timeseriesDeadWork]
        where key != missing {
            measurement.metrics[key.text] = 3
        }
        return measurement
    }

    @Test("a sweep's cell reads every figure a load records; a lost one is an error naming it, not a zero")
    func cellFiguresAreRequired() throws {
        let figures = try RunFigures(Self.measurement(), timeScale: 1)
        #expect(figures.duplicates == 3 && figures.lost == 3 && figures.serverRequests == 3 && figures.deadWork == 3)
        #expect(figures.peakLoad.isNaN && figures.metastable == nil)
        for key in [MetricKey.loadServerRequests, .idempotencyDuplicates, .idempotencyLost, .timeseriesDeadWork] {
            do throws(MissingMetric) {
                _ = try RunFigures(Self.measurement(without: key), timeScale: 1)
                Issue.record("a measurement without \(key) gave figures")
            } catch {
                #expect(error.key == key)
                #expect("\(error)".contains("the metric \(key.text) was not recorded"))
            }
        }
    }

    @Test("a key with a placeholder records and reads nothing: it names a set")
    func patternsAreSets() {
        #expect(MetricKey.sendErrors().isPattern && !MetricKey.sendErrors("timeout").isPattern)
        #expect(MetricKey.sendErrors("timeout").text == "send.errors.timeout")
        #expect(MetricKey.jitterPerAttempt(.ksD, attempt: 2).text == "jitter.ks_d.attempt2")
        #expect(
            MetricKey.cancellationSoak(.heapGrowth, inBackoff: true).text == "cancellation.soak.backoff_heap_growth")
    }

    @Test("the metrics only virtual time measures are declared so, and a sharded run refuses them by that")
    func virtualOnly() throws {
        let declared = Set(MetricCatalog.all.filter(\.virtualOnly).compactMap(\.name))
        #expect(declared.count == 11)
        #expect(declared.contains(MetricKey.jitterExactRetryAfterGapErrors.text))
        #expect(declared.contains(MetricKey.jitterExactOverCap.text))
        #expect(declared.contains(MetricKey.retryExactBudgetViolations.text))
        #expect(!declared.contains(MetricKey.jitterCapMismatches.text))
        // By the declaration, not by the name: every one of them is refused in a sharded run.
        for name in declared {
            var scenario = try makeScenario(#"{"name": "s", "load": {"type": "closed", "concurrency": 2, "sends": 4}}"#)
            scenario.assertions = [try Assertion(parsing: "\(name) == 0")]
            #expect(scenario.exactMetricNames == [name])
        }
    }
}
