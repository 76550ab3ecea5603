import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The time series and the metastability verdict, on made-up goodput and records. The run in which a
/// retry storm keeps the server down while the SDK's default policy recovers is a timing experiment,
/// so it is a pair of scenarios (`metastable-retry-storm`, `metastable-trigger-default-policy`), not
/// a unit test: under a parallel test run the load's own tasks starve and the baseline is lost.
@Suite("metastability: goodput after a trigger, and the series it is read from")
struct MetastabilityTests {
    static func scenario(_ json: String) throws -> Scenario {
        var scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        try scenario.validate()
        scenario.file = "test"
        return scenario
    }

    static func goodput(_ parts: [(count: Int, value: Double)]) -> [Double] {
        parts.flatMap { Array(repeating: $0.value, count: $0.count) }
    }

    @Test("goodput back within the window is recovered, with the seconds it took; goodput that stays low is not")
    func verdict() {
        // 10 s at 100/s, a 10 s trigger at 20/s, then back at once.
        let back = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 20), (30, 100)]), trigger: 10, restore: 20, window: 30, smooth: 3,
            threshold: 0.9)
        #expect(!back.metastable && back.recovery == 0 && back.baseline == 100 && back.after == 100)
        // Back 12 s after the restore.
        let slow = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 20), (12, 30), (18, 95)]), trigger: 10, restore: 20, window: 30,
            smooth: 3, threshold: 0.9)
        #expect(slow.recovery == 12)
        // Stuck at a third of the baseline.
        let stuck = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 20), (30, 33)]), trigger: 10, restore: 20, window: 30, smooth: 3,
            threshold: 0.9)
        #expect(stuck.metastable && stuck.after == 33)
        // One good second in a bad stretch is not a recovery (smoothed over three).
        var spiky = Self.goodput([(10, 100), (10, 20), (30, 10)])
        spiky[25] = 300
        let spike = MetastabilityVerdict(
            goodput: spiky, trigger: 10, restore: 20, window: 30, smooth: 3, threshold: 0.9)
        #expect(spike.recovery == 3, "a 300 spike averages to 106 over three seconds")
        let single = MetastabilityVerdict(
            goodput: spiky, trigger: 10, restore: 20, window: 30, smooth: 4, threshold: 0.9)
        #expect(single.metastable, "over four seconds it averages to 82.5, under 90")
        // A run cut short of the window counts its missing seconds as nothing served.
        let short = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 20), (2, 100)]), trigger: 10, restore: 20, window: 30, smooth: 3,
            threshold: 0.9)
        #expect(short.metastable)
    }

    @Test("the baseline is the second half before the trigger: a ramp, an early spike, a late dip, an odd trigger")
    func baselineSpan() {
        func baseline(_ goodput: [Double], trigger: Double) -> Double {
            MetastabilityVerdict(
                goodput: goodput + Array(repeating: 0, count: 40), trigger: trigger, restore: trigger + 5, window: 20,
                smooth: 3, threshold: 0.9
            ).baseline
        }
        // A warm-up ramp 0, 10, …, 90 before a trigger at 10 s: the mean of seconds 5-9, not of all ten
        // (45), not from second 1 (50), not including the trigger's second.
        let ramp = (0..<10).map { Double($0) * 10 }
        #expect(baseline(ramp, trigger: 10) == 70)
        // A spike in the first half (a connection storm at start) is outside the span.
        var spiked = Array(repeating: 100.0, count: 10)
        spiked[1] = 5_000
        #expect(baseline(spiked, trigger: 10) == 100)
        // One inside it counts, as the span says.
        spiked[7] = 600
        #expect(baseline(spiked, trigger: 10) == 200)
        // A plateau that sags in its last second before the trigger: the sag is in the span.
        var sagging = Array(repeating: 100.0, count: 10)
        sagging[9] = 50
        #expect(baseline(sagging, trigger: 10) == 90)
        // A trigger at 7.5 s: whole seconds 3-6 (the trigger's own second 7 is cut).
        let steps = (0..<8).map { Double($0) }
        #expect(baseline(steps, trigger: 7.5) == 4.5)
        // A plateau that differs before the span: a verdict against the wrong span would call this run
        // recovered (60 ≥ 0.9 × 60) where it is not (60 < 0.9 × 100).
        let levels = Self.goodput([(5, 20), (5, 100), (10, 10), (30, 60)])
        let verdict = MetastabilityVerdict(
            goodput: levels, trigger: 10, restore: 20, window: 30, smooth: 3, threshold: 0.9)
        #expect(verdict.baseline == 100 && verdict.metastable)
        // Recovery exactly at the threshold counts (0.5 × 100, exact in binary); just under it does not.
        let exact = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 10), (30, 50)]), trigger: 10, restore: 20, window: 30, smooth: 3,
            threshold: 0.5)
        #expect(exact.recovery == 0)
        let under = MetastabilityVerdict(
            goodput: Self.goodput([(10, 100), (10, 10), (30, 49.99)]), trigger: 10, restore: 20, window: 30,
            smooth: 3, threshold: 0.5)
        #expect(under.metastable)
    }

    @Test(
        "the series' buckets at their boundaries: a second's start is its own, the end is the last, outside is dropped")
    func bucketBoundaries() {
        func arrival(_ time: Double) -> LedgerRecord {
            var record = LedgerRecord(arrival: time, connection: 1, endpoint: .send, keyID: 1, attempt: 1)
            record.status = 200
            return record
        }
        let times = [0, 0.999_999_999, 1, 1.5, 2 - 1e-12, 2, 3, -0.001, .nan, .infinity]
        let series = TimeSeries(
            TimeSeries.Input(
                width: 1, records: [], ledger: times.map(arrival), attemptBuckets: [], capacity: nil, model: nil, end: 3
            ))
        #expect(series.seconds.count == 3)
        // 0 and 0.999999999 in second 0; 1, 1.5 and 2 − 1e-12 in second 1; 2 and the end (3) in the
        // last; a negative time, NaN and infinity in none.
        #expect(series.seconds.map(\.arrivals) == [2, 3, 2])
        // Half-second buckets: 0.5 starts bucket 1.
        let half = TimeSeries(
            TimeSeries.Input(
                width: 0.5, records: [], ledger: [0.49, 0.5, 0.99, 1.0].map(arrival), attemptBuckets: [],
                capacity: nil, model: nil, end: 1.5))
        #expect(half.seconds.map(\.arrivals) == [1, 2, 1])
    }

    @Test("the series counts arrivals, sends and time in flight per policy second")
    func series() {
        var records: [History.Record] = []
        // Two sends in second 0 (one ok, one failed in second 1), one dropped by the open loop.
        var ok = History.Record(sendID: 0, intended: 0.1)
        ok.started = 0.1
        ok.ended = 0.6
        ok.outcome = .ok(messageID: "m")
        var failed = History.Record(sendID: 1, intended: 0.5)
        failed.started = 0.5
        failed.ended = 1.5
        failed.outcome = .failed(code: .timeout, status: nil)
        var dropped = History.Record(sendID: 2, intended: 0.7)
        dropped.outcome = .dropped
        records = [ok, failed, dropped]
        let series = TimeSeries(
            TimeSeries.Input(
                width: 1, records: records, ledger: [], attemptBuckets: [3, 1], capacity: nil, model: nil, end: 2))
        #expect(series.seconds.count == 2)
        #expect(series.seconds[0].sendsStarted == 2 && series.seconds[0].sendsOK == 1)
        #expect(series.seconds[1].sendsFailed == 1 && series.seconds[0].sendsDropped == 1)
        #expect(series.seconds[0].attemptsStarted == 3 && series.seconds[1].attemptsStarted == 1)
        // In flight: 0.5 s + 0.5 s in second 0, 0.5 s in second 1.
        #expect(abs(series.seconds[0].inFlight - 1.0) < 1e-9 && abs(series.seconds[1].inFlight - 0.5) < 1e-9)
        #expect(series.goodput == [1, 0])
        #expect(!series.capacityRate.isFinite && series.seconds[0].queueDepth.isNaN)
        let csv = series.csv.split(separator: "\n")
        #expect(csv.first.map(String.init) == TimeSeries.header && csv.count == 3)
    }

    @Test("dead work counts until the server's queue is empty, not when the last send ends, up to the drain limit")
    func deadWorkToTheDrain() {
        let model = CapacityModel(
            workers: 2, serviceTime: .exponential(mean: .milliseconds(50), cap: .milliseconds(500)))
        func series(served: [Int], dead: [Int]) -> TimeSeries {
            let capacity = CapacitySeries(
                width: 1, busy: Array(repeating: 0, count: served.count),
                waiting: Array(repeating: 0, count: served.count),
                served: served, dead: dead)
            return TimeSeries(
                TimeSeries.Input(
                    width: 1, records: [], ledger: [], attemptBuckets: [], capacity: capacity, model: model, end: 3))
        }
        // The run ends after 3 s; its queue still finishes work in seconds 3 and 5, all of it dead.
        let drained = series(served: [1, 1, 1, 2, 0, 3], dead: [0, 1, 0, 2, 0, 3])
        #expect(drained.seconds.map(\.deadWork) == [0, 1, 0])
        #expect(drained.deadWorkAfterEnd == 5 && drained.deadWork == 6)
        #expect(drained.drain == 3 && !drained.drainLimited)
        let figures = Dictionary(drained.summary(scenario: "s").metrics.map { ($0.key, $0.value) }) { $1 }
        #expect(figures["timeseries.dead_work"] == 6 && figures["timeseries.dead_work_after_end"] == 5)
        #expect(figures["timeseries.drain_s"] == 3 && figures["timeseries.drain_limited"] == 0)
        // The peak load divides by the exact capacity: 2 workers ÷ 50 ms × (1 − e^(−10)) mean service.
        #expect(drained.capacityRate == 2 / (0.05 * -expm1(-10)))
        // A queue that outlasts the limit is counted to the limit and says so.
        let limit = TimeSeries.drainLimit
        var served = Array(repeating: 0, count: 3 + limit + 10)
        var dead = served
        served[3 + limit - 1] = 1
        dead[3 + limit - 1] = 1
        served[3 + limit + 5] = 1
        dead[3 + limit + 5] = 1
        let long = series(served: served, dead: dead)
        #expect(long.drainLimited && long.drain == Double(limit) && long.deadWork == 1)
    }

    @Test("records with times that are not times add nothing to the series and never trap (a merged shard's NaN start)")
    func recordsWithoutTimes() {
        var records: [History.Record] = []
        for (started, ended) in [(Double.nan, 0.5), (0.2, Double.nan), (0.8, 0.3), (-1, 0.4), (0.1, .infinity)] {
            var record = History.Record(sendID: records.count, intended: 0.1)
            record.started = started
            record.ended = ended
            record.outcome = records.count % 2 == 0 ? .ok(messageID: "m") : .failed(code: .timeout, status: nil)
            records.append(record)
        }
        let series = TimeSeries(
            TimeSeries.Input(
                width: 1, records: records, ledger: [], attemptBuckets: [], capacity: nil, model: nil, end: 2))
        #expect(series.seconds.count == 2)
        // Only the sends whose start is a time count as started (0.2, 0.8, 0.1); only real spans are
        // in flight: 0.2 and 0.1 to the end (an end that is not a time is the run's end), never an
        // end before its start.
        #expect(series.seconds.map(\.sendsStarted) == [3, 0])
        #expect(abs(series.seconds[0].inFlight - 1.7) < 1e-9 && abs(series.seconds[1].inFlight - 2) < 1e-9)
    }

    @Test("a run stopped before its metastability trigger is judged on what it has: no trap, nothing in the window")
    func stoppedBeforeTrigger() throws {
        var ok = History.Record(sendID: 0, intended: 0.1)
        ok.started = 0.1
        ok.ended = 0.2
        ok.outcome = .ok(messageID: "m")
        let series = TimeSeries(
            TimeSeries.Input(
                width: 1, records: [ok], ledger: [], attemptBuckets: [], capacity: nil, model: nil, end: 0.3))
        let settings = try JSONDecoder().decode(
            MetastabilitySettings.self, from: Data(#"{"trigger": "10s", "restore": "20s", "window": "30s"}"#.utf8))
        let figures = Dictionary(
            series.metastability(settings, trigger: 10, restore: 20).map { ($0.0.text, $0.1) }, uniquingKeysWith: { $1 }
        )
        #expect(figures["metastability.dead_work"] == 0)
        #expect(figures["metastability.trigger_s"] == 10)
    }

    @Test("a metastability section is checked: its trigger, its load and its window")
    func validation() {
        let plan =
            #""plan": {"capacity": {"workers": 2, "serviceTime": "10ms", "schedule": [{"from": "10s", "to": "20s", "factor": 0.5}]}}"#
        let load = #""load": {"type": "open", "policyTime": true, "rate": 100, "duration": "60s"}"#
        let cases: [(String, String)] = [
            (
                #"{"name": "m", \#(load), "metastability": {}}"#,
                "metastability.trigger: the plan has no capacity schedule"
            ),
            (
                #"{"name": "m", "load": {"type": "open", "rate": 100, "duration": "60s"}, \#(plan), "metastability": {}}"#,
                "metastability: judges an open load written in policy time"
            ),
            (
                #"{"name": "m", "load": {"type": "closed", "sends": 10}, \#(plan), "metastability": {}}"#,
                "metastability: judges an open load"
            ),
            (
                #"{"name": "m", \#(load), \#(plan), "metastability": {"window": "50s"}}"#,
                "metastability.window: the load ends at 60s, before the window does"
            ),
            (#"{"name": "m", \#(load), \#(plan), "metastability": {"threshold": 1.5}}"#, "metastability.threshold"),
            (#"{"name": "m", \#(load), \#(plan), "metastability": {"trigger": "1s"}}"#, "at least 2 s"),
            (
                #"{"name": "m", \#(load), \#(plan), "metastability": {"trigger": "12s", "restore": "11s"}}"#,
                "metastability.restore: must be after the trigger"
            ),
            (#"{"name": "m", \#(load), \#(plan), "metastability": {"smooth": "0s"}}"#, "metastability.smooth"),
            (
                #"{"name": "m", \#(load), \#(plan), "metastability": {"window": "5s", "smooth": "10s"}}"#,
                "metastability.smooth: must be at most the window"
            ),
            (#"{"name": "m", \#(load), \#(plan), "metastability": {"windw": "1s"}}"#, "windw"),
            (
                #"{"name": "m", \#(load), \#(plan), "assertions": ["metastability.verdict == 0"]}"#,
                "needs a metastability section"
            ),
            (
                #"{"name": "m", \#(load), "assertions": ["timeseries.peak_load < 1"]}"#,
                "no capacity model"
            ),
            (
                #"{"name": "m", "load": {"type": "open", "policyTime": true, "rate": {"fraction": 0.5, "of": "inProcessCore"}, "duration": "1s"}}"#,
                "load.policyTime: takes written rates"
            ),
        ]
        for (json, expected) in cases {
            do {
                _ = try Self.scenario(json)
                Issue.record("accepted: \(json)")
            } catch let error as InputError {
                #expect(error.description.contains(expected), "\(error.description)")
            } catch {
                #expect(String(describing: error).contains(expected), "\(error)")
            }
        }
        #expect(throws: Never.self) {
            _ = try Self.scenario(
                #"{"name": "m", \#(load), \#(plan), "metastability": {"window": "30s"}, "assertions": ["metastability.verdict == 0", "timeseries.peak_load < 2"]}"#
            )
        }
    }

    @Test(
        "a policy-time load runs at rate ÷ timeScale for duration × timeScale; --quick keeps a metastability run's length"
    )
    func policyTime() throws {
        let scenario = try Self.scenario(
            #"{"name": "p", "timeScale": 0.1, "load": {"type": "open", "policyTime": true, "rate": 50, "duration": "40s"}, "plan": {"capacity": {"workers": 2, "serviceTime": "10ms", "schedule": [{"from": "5s", "to": "10s", "workers": 1}]}}, "metastability": {"window": "20s"}}"#
        )
        let running = scenario.load.running(timeScale: scenario.timeScale)
        #expect(abs(running.rate - 500) < 1e-9 && abs((running.duration?.seconds ?? 0) - 4) < 1e-9)
        #expect(scenario.quickened().load.duration == scenario.load.duration)
        var staged = scenario.load
        staged.stages = [LoadSettings.Stage(rate: 10, duration: TimeSpan(seconds: 30))]
        let stages = staged.running(timeScale: 0.5).stages
        #expect(stages.first?.rate == 20 && stages.first?.duration.seconds == 15)
        var wall = scenario.load
        wall.policyTime = false
        #expect(wall.running(timeScale: 0.1) == wall)
    }
}
