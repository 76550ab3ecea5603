import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Simulator
import Synchronization
import Testing

@testable import LoadKit

/// When the control arm's requests started.
private final class Starts: Sendable {
    let times = Mutex<[Double]>([])
}

/// The control arm: plain URLSession beside a socket load, on the same schedule at the same time,
/// so a machine that loses capacity during the run fails neither arm alone.
@Suite("control arm: the SDK against plain URLSession in the same moments", .serialized)
struct ControlArmTests {
    @Test(
        "load.control is checked in the file",
        arguments: [
            (
                #"{"name": "x", "transport": "socket", "load": {"type": "closed", "sends": 8, "control": "rawURLSession"}}"#,
                "load.control: a control arm runs the open loop's schedule"
            ),
            (
                #"{"name": "x", "load": {"type": "open", "rate": 10, "duration": "1s", "control": "rawURLSession"}}"#,
                "load.control: the control arm runs plain URLSession beside a socket load; this scenario runs in process"
            ),
            (
                #"{"name": "x", "transport": "socket", "load": {"type": "open", "rate": 10, "duration": "1s", "control": "wrk"}}"#,
                "load.control: 'wrk' is not one of rawURLSession"
            ),
            (
                #"{"name": "x", "transport": "socket", "load": {"type": "open", "rate": 10, "duration": "1s", "control": 1}}"#,
                "load.control"
            ),
            (
                #"{"name": "x", "transport": "socket", "load": {"type": "open", "rate": 10, "duration": "1s"}, "assertions": ["control.excess_drop_rate <= 0.01"]}"#,
                "'control.excess_drop_rate' is measured by a load's control arm (load.control), which this scenario lacks"
            ),
            (
                #"{"name": "x", "transport": "socket", "load": {"type": "open", "rate": 10, "duration": "1s", "control": "rawURLSession"}, "assertions": ["control.latency.p90 <= 1"]}"#,
                "unknown metric 'control.latency.p90'"
            ),
        ])
    func badControl(json: String, expected: String) {
        do {
            _ = try makeScenario(json)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains(expected), "got \(error)")
        }
    }

    @Test("a control arm's names are accepted where it runs")
    func names() throws {
        let scenario = try makeScenario(
            #"{"name": "x", "transport": "socket", "load": {"type": "open", "rate": 10, "duration": "1s", "control": "rawURLSession"}, "assertions": ["control.excess_drop_rate <= 0.01", "send.throughput >= 0.9 * control.throughput", "control.latency.p99 <= 100"]}"#
        )
        #expect(scenario.load.control == .rawURLSession)
        #expect(scenario.assertions.count == 3)
    }

    /// On virtual time the loop's counts are exact: 30 arrivals 10 ms apart, a cap of 2 requests
    /// that each take 2 s: the first two are sent, the other 28 dropped, each sent one answered 2 s
    /// after its intended start, half an interval after the SDK's schedule.
    @Test("the loop sends on the schedule, half an interval late, and drops above its cap (virtual time)")
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func exactLoop() async throws {
        var load = LoadSettings()
        load.kind = .open
        load.rate = 100
        load.duration = TimeSpan(seconds: 0.3)
        load.maxInFlight = 2
        let starts = Starts()
        let (result, _) = try await Simulation.run { [load] clock in
            await ControlArm.openLoop(load, share: 1, clock: clock) {
                starts.times.withLock { $0.append(clock.now()) }
                try? await clock.sleep(seconds: 2)
                return true
            }
        }
        #expect(result.sends == 2)
        #expect(result.dropped == 28)
        #expect(result.ok == 2 && result.failed == 0)
        let started = starts.times.withLock { $0 }
        #expect(started.count == 2)
        #expect(zip(started, [0.005, 0.015]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(started)")
        #expect(result.latency.count == 2)
        #expect(abs(result.latency.value(at: 1) - 2e9) <= 2e9 * 0.01)
        #expect(abs(result.elapsed - 2.015) < 1e-9)
        #expect(result.dropRate == 28.0 / 30)
    }

    @Test("a share of N takes every N-th arrival and 1/N of the cap (virtual time)")
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func share() async throws {
        var load = LoadSettings()
        load.kind = .open
        load.rate = 100
        load.duration = TimeSpan(seconds: 0.3)
        load.maxInFlight = 4
        let (result, _) = try await Simulation.run { [load] clock in
            await ControlArm.openLoop(load, share: 3, clock: clock) {
                try? await clock.sleep(seconds: 1)
                return false
            }
        }
        #expect(result.sends == 1)
        #expect(result.dropped == 9)
        #expect(result.failed == 1 && result.ok == 0)
    }

    /// 100 sends/s for a second over sockets beside a control arm of plain URLSession, at most
    /// `maxInFlight` in flight in each arm. How fast either arm is on a machine busy with other tests
    /// is no evidence here (the real SDK's sends took up to 0.9 s beside them and dropped 8 of 100
    /// at a cap of 64 while the control dropped none): that judgement is the `socket-throughput`
    /// scenario's. This test asserts what does not depend on the machine.
    static func scenario(maxInFlight: Int) -> String {
        """
        {"name": "control", "transport": "socket",
         "load": {"type": "open", "rate": 100, "duration": "1s", "maxInFlight": \(maxInFlight), "control": "rawURLSession"},
         "assertions": ["control.excess_drop_rate <= 0.05"]}
        """
    }

    @Test("the real SDK drops no more than plain URLSession beside it; one that holds its sends drops more")
    func verdict() async throws {
        // Room in flight for every arrival: neither arm can drop, so the real SDK passes whatever
        // the machine's load, and every arrival is a send that succeeded in both arms.
        let roomy = try makeScenario(Self.scenario(maxInFlight: 100))
        let correct = try await ScenarioRunner(outputFolder: nil, runID: "T", progress: false).run(roomy)
        #expect(correct.passed, "\(correct.verdictLine)")
        #expect(correct.metrics["control.sends"] == 100 && correct.metrics["control.dropped"] == 0)
        #expect(correct.metrics["control.ok"] == 100 && correct.metrics["send.ok"] == 100)
        #expect(correct.metrics["control.excess_drop_rate"] == 0)
        #expect(correct.rows.contains { $0.probe == "control" && $0.metric == "latency" && $0.statistic == "p99" })
        // An SDK that holds each send three seconds keeps every send it started in flight past the
        // last arrival, even when a loaded machine stretches the second of arrivals: at a cap of 64,
        // 64 in flight and 36 dropped. Whether plain URLSession beside it keeps up depends on the
        // machine (beside a CPU hog it dropped 36 too): asserted is the SDK's own drop count, and
        // that the verdict is its drops beyond the control's, judged as the assertion says.
        var runner = ScenarioRunner(outputFolder: nil, runID: "T", progress: false)
        runner.seams.transportWrapper = { HoldingTransport(inner: $0) }
        let holding = try await runner.run(try makeScenario(Self.scenario(maxInFlight: 64)))
        let sdkDropped = holding.metrics["send.dropped"] ?? .nan
        let controlDropped = holding.metrics["control.dropped"] ?? .nan
        #expect(sdkDropped >= 30, "\(sdkDropped)")
        let excess = holding.metrics["control.excess_drop_rate"] ?? .nan
        #expect(abs(excess - (sdkDropped - controlDropped) / 100) < 1e-12)
        #expect(holding.passed == (excess <= 0.05), "\(holding.verdictLine)")
    }
}
