import FakeFrontmail
import Foundation
import Frontmail
import Synchronization
import Testing

@testable import LoadKit

/// The virtual clock a scenario's client runs on, for a random source that reads it.
final class ClockBox: Sendable {
    let clock = Mutex<(any FrontmailScheduler)?>(nil)
}

/// Do the draws of retries that ask at the same moment depend on each other? The KS test sees each
/// draw alone, so an SDK that seeds its random source from a clock tick passes it as long as ticks
/// are many; the pair test sees neighbours.
@Suite("jitter: retries that ask at the same moment draw independently")
struct PairDependenceTests {
    /// Open loop at 2,000 sends per policy second for 3 s, 30 % answered 503: about 1,800 jittered
    /// retries, a few per millisecond.
    static let scenario = """
        {"name": "pairs", "seed": 8,
         "load": {"type": "open", "policyTime": true, "rate": 2000, "duration": "3s", "maxInFlight": 5000},
         "plan": {"rules": [{"match": {"endpoint": "send", "probability": 0.3}, "action": {"type": "respond", "status": 503}}]},
         "assertions": ["jitter.pair_dependence < 4.42", "jitter.pair_samples >= 500",
                        "jitter.ks_d < jitter.ks_critical_001"]}
        """

    static func run(clockSeeded: Bool) async throws -> ScenarioResult {
        let scenario = try makeScenario(Self.scenario)
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        if clockSeeded {
            let box = ClockBox()
            runner.seams.clockWrapper = { clock in
                box.clock.withLock { $0 = clock }
                return clock
            }
            // Seeded from the millisecond the draw is made in: draws in one tick are equal.
            runner.seams.drawDefect = { _ in
                let now = box.clock.withLock { $0?.now() } ?? 0
                var generator = SeededRandom(seed: UInt64(max(0, (now * 1000).rounded(.down))))
                return generator.unit()
            }
        }
        return try await runner.run(scenario)
    }

    @Test("the real SDK: neighbours' draws are independent")
    func correctPasses() async throws {
        let result = try await Self.run(clockSeeded: false)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.pair_samples"] ?? 0) >= 500)
    }

    @Test("an SDK seeded from the clock tick passes the KS test and fails the pair test")
    func clockSeededFails() async throws {
        let result = try await Self.run(clockSeeded: true)
        let failed = Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
        #expect(failed == ["jitter.pair_dependence < 4.42"], "\(result.verdictLine)")
        #expect((result.metrics["jitter.pair_dependence"] ?? 0) > 10)
    }

    @Test("pairs are neighbours in time within the window, in the order of their ends, ties by send")
    func pairing() {
        let timed: [(at: Double, sendID: Int, position: Double)] = [
            (0.0100, 2, 0.2), (0.0100, 1, 0.1), (0.0105, 3, 0.3), (0.0200, 4, 0.4), (0.02099, 5, 0.5),
        ]
        let pairs = JitterProbe.simultaneousPairs(timed)
        #expect(pairs.map(\.0) == [0.1, 0.2, 0.4])
        #expect(pairs.map(\.1) == [0.2, 0.3, 0.5])
        #expect(JitterProbe.simultaneousPairs([]).isEmpty)
        #expect(JitterProbe.rankDependence(Array(repeating: (0.5, 0.5), count: 9)).isNaN)
        // Perfectly dependent pairs: |ρ| = 1, z = √(n − 1).
        let same = (0..<101).map { (Double($0), Double($0)) }
        #expect(abs(JitterProbe.rankDependence(same) - 10) < 1e-9)
    }
}
