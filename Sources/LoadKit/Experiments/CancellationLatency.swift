import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures the time from `task.cancel()` to the error a send throws, at a chosen moment of the
/// send, with and without other sends in flight on the same client, for the SDK and for a plain
/// `URLSession.data(for:)` baseline.
public enum CancellationLatency {
    public enum Client: String, Sendable, CaseIterable {
        /// `Frontmail.send` through the scenario's transport.
        case sdk
        /// `URLSession.data(for:)` (sockets only), the baseline.
        case rawURLSession = "raw_urlsession"
    }

    public struct Result: Sendable {
        public var client: Client
        public var phase: CancellationPhase
        public var backgroundLoad: Int
        /// Cancel → thrown, in nanoseconds.
        public var latency = Histogram()
        /// Cancel → the server saw the connection end, in nanoseconds (held connections only; one the
        /// server had not seen end after `serverCloseBound` counts at the bound).
        public var serverClose = Histogram()
        /// Held connections the server had not seen end after `serverCloseBound`.
        public var serverCloseTimeouts = 0
        /// The same run's reference, in nanoseconds: cancel → return of a bare task waiting only for
        /// its cancel, cancelled with each SDK sample right after its send (what the machine's
        /// scheduling alone cost at that instant; relative thresholds divide by it).
        public var reference = Histogram()
        /// Per SDK sample, in nanoseconds: its cancel → thrown beyond its reference's (0 when the
        /// reference took longer): the SDK's own share of the latency.
        public var excess = Histogram()
        /// Errors by code (`aborted` for the SDK; `cancelled` for the baseline; `ok` if it finished first).
        public var codes: [String: Int] = [:]
        /// Attempts the SDK started after the cancel (its own events, its own clock; must be 0).
        public var attemptsAfterCancel = 0
        /// Requests of a cancelled send that reached the server after the cancel (sent before it,
        /// arriving late: possible under load, not a defect).
        public var arrivalsAfterCancel = 0
        /// From the server's ledger alone: requests of a send cancelled while one attempt was held by
        /// the server or while it waited in a backoff (so none could be on its way) that arrived after
        /// the cancel, counted once the longest wait of the phase has passed. Each is a retry after
        /// the cancel, whatever the SDK reported (must be 0; NaN for phases where an attempt may be
        /// in transit at the cancel).
        public var serverRetriesAfterCancel = Double.nan
        /// The URLSession transport's live requests once everything ended (must be 0).
        public var liveAfter = 0
        /// Resident memory growth over the run, in KiB (leaks show as steady growth).
        public var residentGrowthKiB: Double = .nan
        /// Wall seconds the phase took, its samples and its settling wait.
        public var wallSeconds = 0.0
        /// CPU seconds over the phase of the client's threads (the SDK, URLSession's work queue,
        /// libdispatch's event thread) and of the fake server's event loop (NaN without one).
        public var clientCPUSeconds = Double.nan
        public var serverCPUSeconds = Double.nan
        /// Connections the server opened during the phase, and held open at its end (NaN in process).
        public var connectionsOpened = Double.nan
        public var connectionsActive = Double.nan
    }

    static let measuredPrefix = "cancel-probe-"
    /// How long the experiment waits for the server to see a cancelled held connection end.
    static let serverCloseBound = 10.0

    static func prefix(_ phase: CancellationPhase) -> String { "\(measuredPrefix)\(phase.rawValue)-" }

    /// The plan: each phase's measured sends (explicit keys with the phase's prefix) meet its fault;
    /// every other send (the background load) hangs until cancelled.
    static func plan(_ phases: [CancellationPhase], timeScale: Double) -> FaultPlan {
        var rules: [FaultRule] = []
        for phase in phases {
            let measured = FaultMatch(
                endpoint: .send, header: HeaderMatch(name: "Idempotency-Key", prefix: prefix(phase)))
            switch phase {
            case .beforeFirstAttempt, .inFlight:
                rules.append(FaultRule(match: measured, action: FaultAction(.hang)))
            case .backoff:
                rules.append(FaultRule(match: measured, action: .respond(503, retryAfter: .seconds(30 * timeScale))))
            case .slowBody:
                rules.append(FaultRule(match: measured, action: FaultAction(.slowBody, bytesPerSecond: 2)))
            case .random:
                var retry = measured
                retry.probability = 0.3
                var hang = measured
                hang.probability = 0.3
                rules += [
                    FaultRule(match: retry, action: .respond(503, retryAfter: .seconds(0.5 * timeScale))),
                    FaultRule(match: hang, action: FaultAction(.hang)),
                    FaultRule(
                        match: measured,
                        action: FaultAction(
                            .delay, delay: .uniform(min: .zero, max: TimeSpan(seconds: 0.5 * timeScale)))),
                ]
            }
        }
        rules.append(FaultRule(match: FaultMatch(endpoint: .send), action: FaultAction(.hang)))
        return FaultPlan(rules: rules)
    }

    /// Runs `samples` cancellations per phase with `backgroundLoad` hanging sends in flight; the
    /// server, the session and the background load are shared by the phases.
    public static func measure(
        client kind: Client, phases: [CancellationPhase], samples: Int, backgroundLoad: Int,
        transport: FrontEnd = .socket,
        timeScale: Double = 0.01,
        wrap: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)? = nil
    ) async throws -> [Result] {
        let core = FakeFrontmailCore(plan: plan(phases, timeScale: timeScale), seed: 1)
        return try await withFakeFrontmail(
            frontEnd: kind == .rawURLSession ? .socket : transport, core: core,
            session: .init(maxConnections: max(64, backgroundLoad + 64), requestTimeout: 600)
        ) { harness in
            try await measure(
                client: kind, phases: phases, samples: samples, backgroundLoad: backgroundLoad, harness: harness,
                timeScale: timeScale, wrap: wrap)
        }
    }

    /// What every sample of one measurement shares: the client kind, the server and the send.
    private struct Rig {
        let kind: Client
        let harness: FakeFrontmailHarness
        let observer: ProbeObserver
        /// One send under the given key, counted as open while it runs; returns the code it ended with.
        let send: @Sendable (String) async -> String
        let backgroundLoad: Int
        let timeScale: Double
        var core: FakeFrontmailCore { harness.core }
    }

    private static func measure(
        client kind: Client, phases: [CancellationPhase], samples: Int, backgroundLoad: Int,
        harness: FakeFrontmailHarness, timeScale: Double,
        wrap: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?
    ) async throws -> [Result] {
        let core = harness.core
        let observer = ProbeObserver()
        let client = try harness.client(
            publicKey: "pk_cancel",
            retry: RetryPolicy(
                maxRetries: 3, baseDelay: 0.3 * timeScale, maxDelay: 10 * timeScale, maxRetryAfter: 60 * timeScale),
            timeout: 600, environment: SendEnvironment(observer: observer), wrap: { wrap?($0) ?? $0 })
        @Sendable func sendOnce(_ key: String) async -> String {
            switch kind {
            case .sdk:
                do {
                    _ = try await client.send(
                        templateID: "tpl_bench", params: ["probe": "cancel"], options: SendOptions(idempotencyKey: key))
                    return "ok"
                } catch let error as FrontmailError {
                    return error.code.rawValue
                } catch {
                    return "other"
                }
            case .rawURLSession:
                return await rawSend(harness: harness, key: key)
            }
        }
        let rig = Rig(
            kind: kind, harness: harness, observer: observer,
            send: { key in await OpenSends.counting { await sendOnce(key) } },
            backgroundLoad: backgroundLoad, timeScale: timeScale)

        var results: [Result] = []
        try await withThrowingTaskGroup(of: Void.self) { background in
            for index in 0..<backgroundLoad {
                background.addTask { _ = await rig.send("background-\(index)") }
            }
            try await waitUntil(timeout: stallLimit, "the background sends to reach the server") {
                core.ledger.count >= backgroundLoad
            }
            var random = SeededRandom(seed: 77)
            for phase in phases {
                results.append(try await measure(phase, samples: samples, rig: rig, random: &random))
            }
            background.cancelAll()
        }
        if let urlTransport = harness.transport as? URLSessionTransport, kind == .sdk {
            try await waitUntil(timeout: 10, "URLSession to end every request of the run") {
                urlTransport.liveRequests == 0
            }
            for index in results.indices { results[index].liveAfter = urlTransport.liveRequests }
        }
        return results
    }

    /// One phase: `samples` cancellations one after another, then what the phase cost and what the
    /// server saw after the cancels.
    private static func measure(
        _ phase: CancellationPhase, samples: Int, rig: Rig, random: inout SeededRandom
    ) async throws -> Result {
        let core = rig.core
        var result = Result(client: rig.kind, phase: phase, backgroundLoad: rig.backgroundLoad)
        let residentBefore = residentKiB()
        let phaseStarted = ContinuousClock.now
        let cpuBefore = ThreadCPU.now()
        let openedBefore = rig.harness.server?.stats.connectionsOpened
        let phaseStart = core.ledger.count
        // The keys cancelled with no attempt on its way, and when.
        var settled: [String: Double] = [:]
        for sample in 0..<samples {
            let key = "\(prefix(phase))\(sample)"
            let delay = phase == .random ? random.unit() * 0.6 * rig.timeScale : 0
            let cancelledAt = try await cancelOnce(key, phase, delay: delay, rig: rig, into: &result)
            if phase.ledgerJudgesRetries { settled[key] = cancelledAt }
        }
        result.residentGrowthKiB = residentKiB() - residentBefore
        if !settled.isEmpty {
            result.serverRetriesAfterCancel = try await retriesAfterCancel(
                settled, from: phaseStart, core: core, timeScale: rig.timeScale)
        }
        result.wallSeconds = (ContinuousClock.now - phaseStarted).seconds
        let cpu = ThreadCPU.now() - cpuBefore
        result.clientCPUSeconds = cpu.client
        if let stats = rig.harness.server?.stats, let openedBefore {
            result.serverCPUSeconds = cpu.server
            result.connectionsOpened = Double(stats.connectionsOpened - openedBefore)
            result.connectionsActive = Double(stats.connectionsActive)
        }
        return result
    }

    /// One sample: a send under `key`, cancelled at its phase's point, recorded into `result`;
    /// returns the server's instant of the cancel.
    private static func cancelOnce(
        _ key: String, _ phase: CancellationPhase, delay: Double, rig: Rig, into result: inout Result
    ) async throws -> Double {
        let core = rig.core
        let before = core.ledger.count
        let backoffsBefore = rig.observer.count
        let send = rig.send
        let twin = rig.kind == .sdk ? try await ReferenceTwin.start(core) : nil
        let measured = Task { () -> (String, Double) in
            let code = await send(key)
            return (code, core.now())
        }
        // A wait that fails must not leave the sample's send running past the experiment (it
        // would start requests on a session that is being torn down).
        do {
            try await waitForCancelPoint(
                phase, core: core, requestsBefore: before, observer: rig.observer, backoffsBefore: backoffsBefore,
                delay: delay)
        } catch {
            measured.cancel()
            twin?.task.cancel()
            _ = await measured.value
            throw WaitTimedOut.adding(serverOf: rig.harness, to: error)
        }
        let cancelledAt = core.now()
        measured.cancel()
        twin?.task.cancel()
        // Read after the cancel is requested, so an attempt begun just before `cancel()` (in the
        // `random` phase, say) does not count as one begun after it.
        let cancelledOnSDKClock = SystemClock().now()
        let (code, thrownAt) = await measured.value
        result.latency.record(thrownAt - cancelledAt, scale: 1e9)
        if let twin {
            let reference = await twin.latency(since: cancelledAt)
            result.reference.record(reference, scale: 1e9)
            result.excess.record(max(0, thrownAt - cancelledAt - reference), scale: 1e9)
        }
        result.codes[code, default: 0] += 1
        let records = (before..<core.ledger.count).map { (index: $0, record: core.ledger.record($0)) }
        let ours = records.filter { core.ledger.key($0.record.keyID) == key }
        result.arrivalsAfterCancel += ours.filter { $0.record.arrival > cancelledAt }.count
        result.attemptsAfterCancel += rig.observer.attemptStarts(key).filter { $0 > cancelledOnSDKClock }.count
        // The attempt the server held at the cancel (a request arriving later is not it).
        if phase == .inFlight || phase == .slowBody, let held = ours.last(where: { $0.record.arrival <= cancelledAt }) {
            try await recordServerClose(
                of: held.index, cancelledAt: cancelledAt, core: core, into: &result,
                waiting:
                    "the \(phase) attempt it held at the cancel (\(rig.kind), \(rig.backgroundLoad) in the background)")
        }
        return cancelledAt
    }

    /// Waits until the sample reaches the point its phase cancels at: its request at the server
    /// (in flight; slow body 20 ms later), its backoff begun, `delay` seconds, or at once.
    private static func waitForCancelPoint(
        _ phase: CancellationPhase, core: FakeFrontmailCore, requestsBefore before: Int, observer: ProbeObserver,
        backoffsBefore: Int, delay: Double
    ) async throws {
        switch phase {
        case .beforeFirstAttempt:
            break
        case .inFlight, .slowBody:
            try await waitUntil(timeout: stallLimit, "the \(phase) sample's request to reach the server") {
                core.ledger.count > before
            }
            if phase == .slowBody { try await Task.sleep(nanoseconds: 20_000_000) }
        case .backoff:
            try await waitUntil(timeout: stallLimit, "the backoff sample to start its backoff") {
                observer.count > backoffsBefore
            }
        case .random:
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
        }
    }

    /// The server's view of a cancel: how long after it the server finished the attempt it held.
    /// The SDK's abort is measured apart; a server busy with 1,024 other connections may not see the
    /// connection end within the bound: that is counted at the bound and said, not a reason to lose
    /// the whole experiment.
    private static func recordServerClose(
        of held: Int, cancelledAt: Double, core: FakeFrontmailCore, into result: inout Result, waiting: String
    ) async throws {
        do {
            try await waitUntil(timeout: Self.serverCloseBound, "the server to finish \(waiting)") {
                !core.ledger.record(held).finished.isNaN
            }
            result.serverClose.record(core.ledger.record(held).finished - cancelledAt, scale: 1e9)
        } catch let timedOut as WaitTimedOut {
            result.serverClose.record(Self.serverCloseBound, scale: 1e9)
            result.serverCloseTimeouts += 1
            if result.serverCloseTimeouts == 1 {
                printError("  note: \(timedOut) (counted at the bound)")
            }
        }
    }

    /// Requests of a cancelled send (its key in `settled`, with its cancel's instant) that arrived
    /// after its cancel, among the ledger's records from `start`. Waits first for any wait the
    /// phase's plan or policy schedules (a 30 s Retry-After, a 10 s cap), so a retry that ignored the
    /// cancel has arrived; at most 10 s of real time (a slowed-down scenario's later retries go
    /// uncounted).
    private static func retriesAfterCancel(
        _ settled: [String: Double], from start: Int, core: FakeFrontmailCore, timeScale: Double
    ) async throws -> Double {
        try await Task.sleep(nanoseconds: UInt64(min(10, 30 * timeScale + 0.05) * 1e9))
        var late = 0
        for index in start..<core.ledger.count {
            let record = core.ledger.record(index)
            if let key = core.ledger.key(record.keyID), let cancelledAt = settled[key], record.arrival > cancelledAt {
                late += 1
            }
        }
        return Double(late)
    }
}
