import Foundation
import Testing

@testable import LoadKit

/// `cancellation-socket`'s quick gate judges each cell's p50 against 0.5 ms beside the same run's
/// reference: an SDK that lingers 1 ms before it throws `aborted` fails it where a ratio to the
/// reference (about 3 ms) let it pass.
@Suite("cancellation's quick gate: a 1 ms linger before aborted fails", .serialized)
struct CancellationGateTests {
    static let lingering = [
        "cancellation.inFlight.idle.p50 <= 0.5", "cancellation.inFlight.load.p50 <= 0.5",
        "cancellation.slowBody.idle.p50 <= 0.5", "cancellation.slowBody.load.p50 <= 0.5",
    ]

    @Test("the real SDK passes cancellation-socket's quick gate")
    func correctPasses() async throws {
        let result = try await runStandardQuick("cancellation-socket")
        #expect(failedAssertions(result).isDisjoint(with: Self.lingering), "\(result.verdictLine)")
    }

    @Test("an SDK that lingers 1 ms after a cancel fails every in-flight cell of the gate")
    func lingerFails() async throws {
        let result = try await runStandardQuick("cancellation-socket") { runner in
            runner.seams.transportWrapper = { SlowCancelTransport(inner: $0, linger: 0.001) }
        }
        #expect(failedAssertions(result).isSuperset(of: Self.lingering), "\(result.verdictLine)")
        #expect((result.metrics["cancellation.inFlight.idle.p50"] ?? 0) >= 1)
    }
}
