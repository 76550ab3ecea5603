import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A load's control arm (`"control": "rawURLSession"`): plain `URLSession.data(for:)` requests
/// against a fake of their own (same emulator config, no faults), on the SDK load's own schedule
/// shifted by half an interval, with the same cap on requests in flight, at the same time as the SDK
/// load and in the same process. So both arms meet the same moments of the machine: on a machine
/// whose capacity comes and goes (a CPU hog, a noisy neighbour), both fall behind together, and what
/// the SDK drops beyond what plain URLSession dropped is the SDK's own (`control.excess_drop_rate`).
enum ControlArm {
    typealias Result = ControlFigures

    /// Runs `load` (as the driver runs it: real seconds) with raw URLSession. `share` is the part of
    /// the load this process's SDK load has (a `--workers` run's control arm is one worker's worth:
    /// every `share`-th arrival, and that share of the cap).
    static func run(_ load: LoadSettings, scenario: Scenario, share: Int = 1) async throws -> Result {
        let core = FakeFrontmailCore(config: scenario.server, seed: scenario.seed)
        let options = LoadExperiment.sessionOptions(scenario)
        return try await withFakeFrontmail(frontEnd: .socket, core: core, session: options) { fake in
            guard let session = fake.session else { return Result() }
            let request = RawRequest(url: fake.baseURL.appendingPathComponent("v1/send"), control: true)
            return await openLoop(load, share: share) { await request.send(in: session) }
        }
    }

    /// The open loop: arrivals half an interval after the SDK's (so the two arms interleave), a
    /// request per arrival unless `maxInFlight / share` are in flight (then it is dropped).
    static func openLoop(
        _ load: LoadSettings, share: Int, clock: any FrontmailScheduler = SystemClock(),
        _ one: @escaping @Sendable () async -> Bool
    ) async -> Result {
        let limiter = InFlightLimiter(limit: max(1, load.maxInFlight / share))
        let counts = Tally()
        let start = clock.now()
        let seconds: @Sendable () -> Double = { clock.now() - start }
        await withDiscardingTaskGroup { group in
            var schedule = OpenSchedule(load)
            var upcoming = schedule.next()
            var gap = 0.0
            while let (number, offset) = upcoming {
                upcoming = schedule.next()
                guard number % share == 0 else { continue }
                // Midway to the schedule's next arrival (the last one keeps the gap before it).
                if let next = upcoming { gap = next.offset - offset }
                let intended = offset + gap / 2
                guard await clock.sleepUntil(intended, now: seconds) else { break }
                guard limiter.tryAcquire() else {
                    counts.state.withLock { $0.dropped += 1 }
                    continue
                }
                counts.state.withLock { $0.sends += 1 }
                group.addTask {
                    let ok = await one()
                    let nanos = max(0, (seconds() - intended) * 1e9)
                    limiter.release()
                    counts.state.withLock {
                        if ok { $0.ok += 1 } else { $0.failed += 1 }
                        $0.latency.record(UInt64(nanos))
                    }
                }
            }
        }
        var result = counts.state.withLock { $0 }
        result.elapsed = seconds()
        return result
    }
}

/// The arm's counts, shared by the loop and its requests.
private final class Tally: Sendable {
    let state = Mutex(ControlArm.Result())
}

/// One plain URLSession request to the fake's send endpoint: what the calibration and the control
/// arm measure the SDK against (no SDK, no retries, a fresh key each).
public struct RawRequest: Sendable {
    public let url: URL
    public let body: Data

    public init(url: URL, body: Data) {
        self.url = url
        self.body = body
    }

    init(url: URL, control: Bool = false) {
        let marker = control ? "control" : "calibration"
        self.init(
            url: url,
            body: Data(
                #"{"template_id":"tpl_bench","template_params":{"\#(marker)":true},"user_id":"pk_bench"}"#.utf8))
    }

    /// Whether the fake accepted it (202).
    public func send(in session: URLSession) async -> Bool {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("pk_bench", forHTTPHeaderField: "X-Frontmail-Public-Key")
        request.setValue(UUID().uuidString.lowercased(), forHTTPHeaderField: "Idempotency-Key")
        guard let (_, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 202
    }
}
