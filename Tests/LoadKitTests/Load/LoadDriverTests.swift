import FakeFrontmail
import Foundation
import Synchronization
import Testing

@testable import LoadKit

/// The load drivers and the in-flight limiter, driven with sends that do nothing but wait.
@Suite("load drivers: schedules, drops, cancellation")
struct LoadDriverTests {
    static func openLoad(rate: Double, seconds: Double, maxInFlight: Int = 256) -> LoadSettings {
        var load = LoadSettings()
        load.kind = .open
        load.rate = rate
        load.duration = TimeSpan(seconds: seconds)
        load.maxInFlight = maxInFlight
        return load
    }

    @Test("the open loop's intended starts are the schedule itself, stage after stage")
    func openLoopSchedule() async {
        var load = Self.openLoad(rate: 1, seconds: 1)
        load.stages = [
            LoadSettings.Stage(rate: 500, duration: TimeSpan(seconds: 0.02)),
            LoadSettings.Stage(rate: 1000, duration: TimeSpan(seconds: 0.02)),
        ]
        let history = History(now: realClock())
        await LoadDriver.run(load, history: history) { _ in }
        let intended = history.records.map(\.intended)
        #expect(intended.count == 10 + 20)
        let origin = intended[0]
        for (index, start) in intended.enumerated() {
            let expected = index < 10 ? Double(index) / 500 : 0.02 + Double(index - 10) / 1000
            #expect(abs(start - origin - expected) < 1e-9, "send \(index)")
        }
        #expect(history.records.allSatisfy { $0.verdict == .info && $0.outcome == .pending })
    }

    @Test("the open loop drops, never delays, a send that would exceed maxInFlight")
    func openLoopDrops() async {
        let history = History(now: realClock())
        // 20 scheduled; each send waits until all 20 are scheduled, so exactly 3 are ever in flight.
        await LoadDriver.open(Self.openLoad(rate: 1000, seconds: 0.02, maxInFlight: 3), history: history) { sendID in
            history.started(sendID)
            while history.snapshot.scheduled < 20, !Task.isCancelled { try? await Task.sleep(nanoseconds: 500_000) }
            history.finished(sendID, .ok(messageID: "msg_\(sendID)"))
        }
        let records = history.records
        #expect(records.count == 20)
        #expect(records.filter { $0.verdict == .dropped }.count == 17)
        #expect(records.prefix(3).allSatisfy { $0.verdict == .ok })
        // A dropped send keeps its intended start: latency is never measured from a later moment.
        #expect(records.allSatisfy { $0.intended.isFinite })
    }

    @Test("the closed loop keeps concurrency sends in flight and stops at sends")
    func closedLoop() async {
        var load = LoadSettings()
        load.concurrency = 3
        load.sends = 25
        let history = History(now: realClock())
        let peak = Mutex((now: 0, max: 0))
        let sent = Mutex([Int]())
        await LoadDriver.run(load, history: history) { sendID in
            sent.withLock { $0.append(sendID) }
            peak.withLock {
                $0.now += 1
                $0.max = max($0.max, $0.now)
            }
            // The first three wait for each other, so the peak is reached whatever the scheduling.
            while sendID < 3, peak.withLock({ $0.max }) < 3 { try? await Task.sleep(nanoseconds: 200_000) }
            peak.withLock { $0.now -= 1 }
        }
        #expect(history.records.count == 25)
        #expect(peak.withLock { $0.max } == 3)
        // Every scheduled id is sent exactly once, by whichever slot was free.
        #expect(sent.withLock { $0.sorted() } == Array(0..<25))
        #expect(history.records.map(\.sendID) == Array(0..<25))
    }

    @Test(
        "after the run is cancelled no new send starts and in-flight sends are cancelled",
        arguments: ["closed", "open"])
    func cancellationStopsTheLoop(kind: String) async {
        let history = History(now: realClock())
        var load = kind == "open" ? Self.openLoad(rate: 2000, seconds: 600, maxInFlight: 10_000) : LoadSettings()
        if kind == "closed" {
            load.concurrency = 4
            load.duration = TimeSpan(seconds: 600)
        }
        let cancelledSends = Atomic(0)
        let run = Task { [load] in
            await LoadDriver.run(load, history: history) { _ in
                // Waits until cancelled (bounded: 600 s).
                try? await Task.sleep(nanoseconds: 600_000_000_000)
                if Task.isCancelled { cancelledSends.add(1, ordering: .relaxed) }
            }
        }
        while history.snapshot.scheduled < 4 { try? await Task.sleep(nanoseconds: 500_000) }
        run.cancel()
        await run.value
        let scheduled = history.records.count
        #expect(cancelledSends.load(ordering: .relaxed) == history.records.filter { $0.verdict != .dropped }.count)
        try? await Task.sleep(nanoseconds: 5_000_000)
        #expect(history.records.count == scheduled)
    }

    @Test("a waiter cancelled in the limiter gets no slot and leaves none behind")
    func limiterCancellation() async {
        let limiter = InFlightLimiter(limit: 1)
        #expect(limiter.tryAcquire())
        #expect(!limiter.tryAcquire())
        let waiter = Task { await limiter.acquire() }
        try? await Task.sleep(nanoseconds: 2_000_000)
        waiter.cancel()
        #expect(await waiter.value == false)
        limiter.release()
        // The released slot went back to the pool, not to the cancelled waiter.
        #expect(limiter.tryAcquire())
        #expect(!limiter.tryAcquire())
    }

    @Test("a release hands the slot to the waiter that came first")
    func limiterHandsOver() async {
        let limiter = InFlightLimiter(limit: 1)
        #expect(limiter.tryAcquire())
        let waiter = Task { await limiter.acquire() }
        try? await Task.sleep(nanoseconds: 2_000_000)
        limiter.release()
        #expect(await waiter.value == true)
        #expect(!limiter.tryAcquire())
    }
}

/// The run clock of a live test: seconds since it was made.
func realClock() -> @Sendable () -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    return { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
}
