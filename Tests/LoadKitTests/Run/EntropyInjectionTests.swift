import Foundation
import Testing

@testable import LoadKit

/// On virtual time the simulation injects random bits, not draws: the SDK's own code turns them
/// into the jitter factor, so a skewed draw in that code fails the in-process jitter verdicts.
@Suite("entropy, not decisions: the SDK's own draw runs on virtual time")
struct EntropyInjectionTests {
    static let jitterVerdicts: Set<String> = [
        "jitter.ks_d < jitter.ks_critical_001", "jitter.ks_d.attempt1 < jitter.ks_critical_001.attempt1",
    ]

    static let squared: @Sendable (Double) -> Double = { unit in unit * unit }

    /// The inverse CDF of the triangular distribution on [0, 1) with its mode at 1/2.
    static let triangular: @Sendable (Double) -> Double = { unit in
        unit < 0.5 ? (unit / 2).squareRoot() : 1 - ((1 - unit) / 2).squareRoot()
    }

    @Test("the real SDK's draw from the scenario's seed passes brownout-503's jitter verdicts")
    func correctPasses() async throws {
        let scenario = try PolicyBoundaryTests.scenario("brownout-503")
        let result = try await ScenarioRunner(outputFolder: nil, runID: "test", progress: false).run(scenario)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.samples"] ?? 0) > 500)
    }

    @Test(
        "a squared or triangular uniform in the SDK's draw fails the jitter KS verdicts on virtual time",
        arguments: ["squared", "triangular"])
    func skewedDrawFails(kind: String) async throws {
        let scenario = try PolicyBoundaryTests.scenario("brownout-503")
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        // The scenario's seeded bits stay; only the SDK's conversion of them is broken.
        runner.seams.drawDefect = kind == "squared" ? Self.squared : Self.triangular
        let result = try await runner.run(scenario)
        let failed = Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
        #expect(failed.isSuperset(of: Self.jitterVerdicts), "\(result.verdictLine)")
    }

    /// Judged at α = 10⁻⁵ over sockets, where the draws are the system generator's (a correct SDK
    /// fails one run in 100,000; a squared draw of 100 or more delays has p below 10⁻⁸).
    static let socketKS = "jitter.ks_p >= 0.00001"

    /// A run over sockets is on the real clock: beside a full `swift test` on two cores, whose other
    /// tests have held the cooperative pool for tens of seconds, it once took past the default 60 s.
    /// Ten minutes still ends a real hang.
    static let socketHangLimit = 600.0

    @Test("over sockets the SDK's draw through URLSession passes resets-and-truncation's KS")
    func socketsPass() async throws {
        let scenario = try PolicyBoundaryTests.scenario("resets-and-truncation")
        // Seeded bits, so this test cannot fail by chance; the SDK's own conversion still draws.
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        let random = SeededRandomSource(seed: 61)
        runner.seams.entropy = { random.word() }
        runner.hangLimit = Self.socketHangLimit
        let result = try await runner.run(scenario)
        #expect(!PolicyBoundaryTests.failed(result).contains(Self.socketKS), "\(result.verdictLine)")
        #expect((result.metrics["jitter.samples"] ?? 0) >= 100)
    }

    @Test("over sockets a squared draw fails resets-and-truncation's KS")
    func socketsSkewedFails() async throws {
        let scenario = try PolicyBoundaryTests.scenario("resets-and-truncation")
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.drawDefect = Self.squared
        runner.hangLimit = Self.socketHangLimit
        let result = try await runner.run(scenario)
        #expect(PolicyBoundaryTests.failed(result).contains(Self.socketKS), "\(result.verdictLine)")
    }
}
