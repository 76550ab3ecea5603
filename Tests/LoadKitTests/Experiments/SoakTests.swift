import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// The memory soak must tell a client whose cancelled waits keep their memory until their deadline
/// (`Task.sleep` does: a cancelled sleep is freed only when its deadline passes) from the SDK, whose
/// cancelled waits are freed at once. malloc's bytes in use are process-wide, and the other tests
/// of this process allocate and free beside it, so the two clients run in alternating batches and
/// the verdict is the median of their paired differences: what other tests do moves both sides of
/// a pair alike, a leak moves one side every time. (The soak's absolute rate is judged where the
/// soak runs alone: the `cancellation-soak` scenario, in its own process.)
@Suite("memory soak: cancelled waits with far-away deadlines")
struct SoakTests {
    /// KiB held per 1,000 cancellations of the leaky client beyond the SDK's, in the median pair:
    /// a Task.sleep client measures about 900-1,500 here (about 1 KB per cancelled wait).
    static let limit = 400.0

    static func pairedExcess(_ phase: CancellationLatency.SoakPhase) async throws -> Double {
        let sdk = try CancellationLatency.SoakRig(phase: phase)
        let leaky = try CancellationLatency.SoakRig(phase: phase, clock: TaskSleepClock())
        for _ in 0..<200 {
            try await sdk.once()
            try await leaky.once()
        }
        let batch = 150
        var excess: [Double] = []
        // The SDK's batch is the control: its cancelled waits hold nothing, so a pair whose SDK
        // batch moved the heap by more than the limit saw another test allocate or free beside it,
        // and is measured again (at most 44 pairs for 11 clean ones).
        for _ in 0..<44 where excess.count < 11 {
            let start = CancellationLatency.heapInUseKiB()
            for _ in 0..<batch { try await sdk.once() }
            let middle = CancellationLatency.heapInUseKiB()
            for _ in 0..<batch { try await leaky.once() }
            let end = CancellationLatency.heapInUseKiB()
            guard abs(middle - start) / Double(batch) * 1000 <= limit else { continue }
            excess.append(((end - middle) - (middle - start)) / Double(batch) * 1000)
        }
        return excess.count >= 5 ? RatioEstimate(rounds: excess).value : .nan
    }

    @Test("a client that sleeps with Task.sleep holds memory after cancelled five-minute backoffs; the SDK does not")
    func backoff() async throws {
        // Other tests that free much memory during the leaky batches hide part of its growth (one
        // full `swift test` in about four measured 311 KiB): the leak must show in one of three
        // measurements. A measurement with too few clean pairs (another test allocating throughout,
        // as the explorer's simulations do) is taken again, up to six times in all.
        var measured: [Double] = []
        for _ in 0..<6 where measured.count < 3 {
            let excess = try await Self.pairedExcess(.backoff)
            if excess.isNaN { continue }
            measured.append(excess)
            if excess > Self.limit { break }
        }
        try #require(
            !measured.isEmpty, "malloc's bytes in use are not measurable here, or other tests moved them throughout")
        #expect(measured.contains { $0 > Self.limit }, "\(measured) KiB per 1,000")
    }

    @Test("the soak reports its rate as the median of ten batches")
    func soakRate() async throws {
        let growth = try await CancellationLatency.soak(count: 100, phase: .backoff)
        #expect(growth.perThousand.isFinite)
        #expect(growth.resident.isFinite)
    }
}
