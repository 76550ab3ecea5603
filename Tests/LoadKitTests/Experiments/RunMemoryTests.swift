import FakeFrontmail
import Foundation
import Frontmail
import Synchronization
import Testing

@testable import LoadKit

/// A run on virtual time must leave nothing behind: the root task held its scheduler, and the
/// scheduler the run's value (the fake's ledger and the client's history), so a full sweep grew
/// by about 20 MB per run until the machine ran out of memory.
@Suite("simulation: a run's memory")
struct RunMemoryTests {
    // A weak reference is not Sendable by type; each entry is only read and written under `Weak`'s mutex.
    struct WeakHistory: @unchecked Sendable {
        weak var history: History?
    }

    final class Weak: Sendable {
        private let objects = Mutex<[WeakHistory]>([])
        func add(_ history: History) {
            let entry = WeakHistory(history: history)
            objects.withLock { $0.append(entry) }
        }
        var alive: Int { objects.withLock { $0.filter { $0.history != nil }.count } }
        var count: Int { objects.withLock { $0.count } }
    }

    @Test("a run on virtual time frees its history, ledger and fake when it ends (a full sweep makes 2,592 runs)")
    func runsAreFreed() async throws {
        let scenario = try makeScenario(
            #"{"name": "m", "load": {"type": "open", "policyTime": true, "rate": 200, "duration": "2s"}, "plan": {"rules": [{"match": {"probability": 0.3}, "action": {"type": "respond", "status": 503}}]}}"#
        ).onVirtualTime()
        let weak = Weak()
        for _ in 0..<3 {
            var experiment = LoadExperiment(scenario: scenario, progress: false)
            experiment.seams.observerWrapper = { history in
                if let history = history as? History { weak.add(history) }
                return history
            }
            let measurement = try await experiment.run()
            #expect(measurement.metrics["send.sends"] == 400)
        }
        // The simulation's thread lets go just after the run returns: wait for it (the limit only
        // ends a run that keeps its histories; a loaded runner may take seconds to schedule it).
        let start = Date()
        while weak.alive > 0, Date().timeIntervalSince(start) < 600 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(weak.count == 3)
        #expect(weak.alive == 0)
    }
}
