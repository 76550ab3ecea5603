import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The memory soak must see a client whose cancelled waits keep their memory until their deadline
/// (`Task.sleep` does: a cancelled sleep is freed only when its deadline passes), and the SDK, whose
/// cancelled waits are freed at once, must pass it. The rate is the median of ten batches, so the
/// other tests running in this process move a batch or two, not the verdict.
@Suite("memory soak: cancelled waits with far-away deadlines")
struct SoakTests {
    /// KiB per 1,000 cancellations: a Task.sleep client holds about 1,500 (1.5 KB per cancelled
    /// five-minute wait); the SDK about 30 in a debug build.
    static let limit = 400.0

    @Test("a client sleeping with Task.sleep holds memory after cancelled backoffs; the SDK does not")
    func farDeadlines() async throws {
        let sdk = try await CancellationLatency.soak(count: 2000, phase: .backoff)
        #expect(sdk.perThousand < Self.limit, "\(sdk)")
        let leaky = try await CancellationLatency.soak(count: 2000, phase: .backoff, clock: TaskSleepClock())
        #expect(leaky.perThousand > Self.limit, "\(leaky)")
    }

    @Test("cancelled in flight (a 600 s attempt deadline pending), the SDK holds nothing either")
    func inFlight() async throws {
        let sdk = try await CancellationLatency.soak(count: 2000, phase: .inFlight)
        #expect(sdk.perThousand < Self.limit, "\(sdk)")
        #expect(sdk.resident.isFinite)
    }
}

/// The real clock, but every wait is a `Task.sleep`: what an SDK without its own timer would do.
struct TaskSleepClock: FrontmailClock {
    let system = SystemClock()
    func now() -> TimeInterval { system.now() }
    func wallNow() -> Date { system.wallNow() }
    func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 1e6)) * 1e9))
    }
    func sleep(until deadline: TimeInterval) async throws { try await sleep(seconds: deadline - now()) }
}
