import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// `cancellation-socket`'s quick gate judges each cell's p50 within 0.5 ms beside the same run's
/// reference ratio: an SDK that lingers 1 ms before it throws `aborted` fails it where the ratio
/// alone (1000 × the reference, about 3 ms) let it pass. The real SDK passing it is a timing
/// judgement, so it is the quick suite's (CI runs `cancellation-socket` on its own, and its p50s
/// were 0.002-0.08 ms, idle and beside a two-core CPU hog), not a test's beside other tests.
@Suite("cancellation's quick gate: a 1 ms linger before aborted fails", .serialized)
struct CancellationGateTests {
    static let lingering = [
        "cancellation.inFlight.idle.p50 <= 0.5", "cancellation.inFlight.load.p50 <= 0.5",
        "cancellation.slowBody.idle.p50 <= 0.5", "cancellation.slowBody.load.p50 <= 0.5",
    ]

    @Test("an SDK that lingers 1 ms after a cancel fails every in-flight cell of the gate")
    func lingerFails() async throws {
        var scenario = try PolicyBoundaryTests.scenario("cancellation-socket")
        // The committed assertions, with fewer requests held beside the cancels (this process runs
        // other tests; the linger is at least 1 ms whatever the machine does).
        scenario.cancellation?.backgroundLoad = 16
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.transportWrapper = { SlowCancelTransport(inner: $0, linger: 0.001) }
        let result = try await runner.run(scenario)
        #expect(failedAssertions(result).isSuperset(of: Self.lingering), "\(result.verdictLine)")
        #expect((result.metrics["cancellation.inFlight.idle.p50"] ?? 0) >= 1)
    }
}
