import Foundation
import Frontmail
import FrontmailMutants
import Synchronization
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Timing verdicts relative to a baseline measured in the same run: calibrated loads and
/// thresholds written as a number times a metric.
@Suite("calibration: loads and thresholds relative to the same run", .serialized)
struct CalibrationTests {
    @Test("NAME OP NUMBER * NAME parses, validates its names and evaluates against the same run")
    func relativeGrammar() throws {
        let assertion = try Assertion(parsing: "send.throughput >= 0.5 * calibration.raw_urlsession.throughput")
        #expect(assertion.value == .scaled(0.5, "calibration.raw_urlsession.throughput"))
        #expect(assertion.evaluate(["send.throughput": 60, "calibration.raw_urlsession.throughput": 100]).passed)
        let failed = assertion.evaluate(["send.throughput": 40, "calibration.raw_urlsession.throughput": 100])
        #expect(!failed.passed && failed.expected == 50)
        #expect(!assertion.evaluate(["send.throughput": 40]).passed, "a missing baseline fails")
        for bad in ["a >= x * b", "a >= 0.5 x b", "a >= -1 * b", "a >= 0.5 * 2", "a >= 0.5 *"] {
            #expect(throws: InputError.self, "\(bad)") { try Assertion(parsing: bad) }
        }
    }

    static let calibrated =
        #""load": {"type": "open", "rate": {"fraction": 0.01, "of": "inProcessCore"}, "duration": "500ms"}"#

    @Test(
        "a calibrated rate and the names it brings are checked in the file",
        arguments: [
            (
                #"{"name": "x", "load": {"type": "open", "rate": {"fraction": 0.5, "of": "rawURLSession"}, "duration": "1s"}}"#,
                "load.rate.of: rawURLSession is a socket reference"
            ),
            (
                #"{"name": "x", "load": {"type": "open", "rate": {"fraction": 0, "of": "inProcessCore"}, "duration": "1s"}}"#,
                "load.rate.fraction: must be 0.01-10"
            ),
            (
                #"{"name": "x", "load": {"type": "open", "rate": {"fraction": 0.5, "of": "wrk"}, "duration": "1s"}}"#,
                "load.rate.of: 'wrk' is not one of rawURLSession, inProcessCore"
            ),
            (
                #"{"name": "x", "load": {"type": "open", "rate": 10, "duration": "1s"}, "assertions": ["send.throughput >= 0.5 * calibration.in_process_core.throughput"]}"#,
                "this scenario's load is not calibrated"
            ),
            (
                #"{"name": "x", \#(calibrated), "assertions": ["send.throughput >= 0.5 * calibration.raw_urlsession.throughput"]}"#,
                "not one of calibration.in_process_core.throughput"
            ),
        ])
    func badCalibration(json: String, expected: String) {
        do {
            _ = try makeScenario(json)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains(expected), "got \(error)")
        }
    }

    @Test("a calibrated load runs at its fraction of the capacity measured first, and says what it measured")
    func calibratedLoad() async throws {
        let scenario = try makeScenario(
            #"{"name": "cal", \#(Self.calibrated), "assertions": ["send.sends >= 0.002 * calibration.in_process_core.throughput"]}"#
        )
        let result = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
        let throughput = try #require(result.metrics["calibration.in_process_core.throughput"])
        // A measured capacity, whatever it is on this host (beside a full `swift test` on two cores it
        // has been 26 sends/s); what is tested is that the load is its fraction.
        #expect(throughput > 0)
        #expect(result.metrics["calibration.load.rate"] == max(0.01, 0.01 * throughput))
        #expect(result.metrics["calibration.in_process_core.window"] == Calibration.window)
        #expect(result.passed, "\(result.verdictLine)")
        #expect(result.rows.first?.probe == "calibration")
    }

    @Test("the closed-loop rate counts successes and failures")
    func closedLoopRate() async {
        let calls = Mutex(0)
        let (rate, failures) = await Calibration.closedLoopRate(concurrency: 2, seconds: 0.05) {
            try? await Task.sleep(nanoseconds: 1_000_000)
            return calls.withLock { count in
                count += 1
                return count % 2 == 0
            }
        }
        let total = calls.withLock { $0 }
        #expect(total >= 2)
        #expect(failures == (total + 1) / 2)
        #expect(rate > 0)
    }

    /// Two relative cells (idle, then load) at 300x the same run's reference: the test below checks
    /// each verdict against the run's own figures, whichever way this host's load makes them fall.
    static let cancellation = """
        {"name": "cancel", "timeScale": 0.01,
         "cancellation": {"phases": ["inFlight"], "samples": 8, "backgroundLoad": 16},
         "assertions": ["cancellation.inFlight.idle.p50 <= 300 * cancellation.inFlight.idle.reference_p50",
                        "cancellation.inFlight.load.p50 <= 300 * cancellation.inFlight.load.reference_p50"]}
        """

    /// Whether each of the scenario's two relative checks (idle, then load) says what the run's own
    /// figures say: its p50 at most 300 times the same run's reference p50.
    static func judgedByItsOwnReference(_ result: ScenarioResult) -> Bool {
        ["idle", "load"].enumerated().allSatisfy { index, cell in
            guard let p50 = result.metrics["cancellation.inFlight.\(cell).p50"],
                let reference = result.metrics["cancellation.inFlight.\(cell).reference_p50"], reference > 0,
                result.checks.count == 2
            else { return false }
            return result.checks[index].passed == (p50 <= 300 * reference)
        }
    }

    /// Whether a correct SDK passes and a lingering one fails depends on the host: beside the rest of
    /// `swift test` on 2 cores the same run's reference median has passed 20 ms (a 6 s linger then
    /// passed 300x) and the correct SDK's loaded median 300x its reference (28 ms). What holds on
    /// any host is checked here: each verdict is the run's own figures against its own reference,
    /// and a client that lingers 6 s measures at least 6 s. The separation itself is judged where
    /// nothing else runs: CI's quick scenario suite (`cancellation-socket`'s and
    /// `cancellation-soak`'s relative cells), and `cancellation's quick gate` (a 1 ms linger fails
    /// every in-flight cell).
    @Test("a relative cancellation verdict is the run's p50 against its own reference; a 6 s linger measures 6 s")
    func relativeCancellation() async throws {
        let scenario = try makeScenario(Self.cancellation)
        let correct = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(scenario)
        #expect(Self.judgedByItsOwnReference(correct), "\(correct.verdictLine)")
        var runner = ScenarioRunner(outputFolder: nil, runID: "T", progress: false)
        runner.seams.transportWrapper = { SlowCancelTransport(inner: $0, linger: 6) }
        let slow = try await runner.run(
            makeScenario(Self.cancellation.replacingOccurrences(of: "\"samples\": 8", with: "\"samples\": 3")))
        #expect(Self.judgedByItsOwnReference(slow), "\(slow.verdictLine)")
        #expect((slow.metrics["cancellation.inFlight.idle.p50"] ?? 0) >= 6000)
        // Each sample's excess is its latency less its own reference, so a 6 s linger leaves at
        // least 6 s less the largest reference (the full run's `excess_p90 <= 1` then fails it).
        for cell in ["idle", "load"] {
            let excess = slow.metrics["cancellation.inFlight.\(cell).excess_p90"] ?? 0
            let reference = slow.metrics["cancellation.inFlight.\(cell).reference_max"] ?? .infinity
            #expect(excess >= 6000 - reference, "\(cell): excess p90 \(excess) ms, reference max \(reference) ms")
        }
        // And the correct SDK's excess is at most its latency (never a figure of its own making).
        for cell in ["idle", "load"] {
            let excess = correct.metrics["cancellation.inFlight.\(cell).excess_max"] ?? .nan
            let latency = correct.metrics["cancellation.inFlight.\(cell).max"] ?? .nan
            #expect(excess <= latency, "\(cell): excess max \(excess) ms, max \(latency) ms")
        }
    }
}
