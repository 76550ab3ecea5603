import CProcessMemory
import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Counts the backoffs the SDK scheduled and notes when each measured send's attempts started.
final class ProbeObserver: SendObserver {
    private let backoffs = Atomic<Int>(0)
    private let starts = Mutex<[String: [Double]]>([:])
    var count: Int { backoffs.load(ordering: .relaxed) }

    func attemptStarts(_ key: String) -> [Double] { starts.withLock { $0[key] ?? [] } }

    func record(_ event: SendEvent) {
        switch event {
        case .backoffScheduled:
            backoffs.add(1, ordering: .relaxed)
        case .attemptStarted(_, let key?, _, let at) where key.hasPrefix(CancellationLatency.measuredPrefix):
            starts.withLock { $0[key, default: []].append(at) }
        default:
            break
        }
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var seconds: Double
    /// What was waited for ("the server to finish …").
    var what: String
    /// What else was seen when the wait ended (the server's connections, say).
    var seen: String?
    var description: String { "waited \(seconds) s for \(what), in vain" + (seen.map { " (\($0))" } ?? "") }

    /// `error` with what the server held when a wait failed, to tell a request that never left the
    /// client (its connection pool full, say) from one the server never answered. Any other error,
    /// or no server, is returned as it is.
    static func adding(serverOf harness: FakeFrontmailHarness, to error: any Error) -> any Error {
        guard var timedOut = error as? WaitTimedOut, let stats = harness.server?.stats else { return error }
        timedOut.seen =
            "the server then held \(stats.connectionsActive) open connections of \(stats.connectionsOpened) opened"
            + " and had seen \(harness.core.ledger.count) requests"
        return timedOut
    }
}

/// How long an experiment waits for a state that must come (a request to reach the server, a send
/// to start its backoff) before it calls the run stuck. It only ends a run that would hang: a
/// machine starved by a CPU hog beside two other runs once took more than 30 s to get there.
let stallLimit: Double = 600

/// Polls `condition` every 0.2 ms until it holds or `timeout` seconds pass; `what` names the
/// condition in the error. `yielding` first polls between yields for up to 1,000 turns (for
/// conditions that hold within microseconds, where a sleep's timer would be most of the wait).
func waitUntil(
    timeout: Double, yielding: Bool = false, _ what: @autoclosure () -> String, _ condition: () -> Bool
) async throws {
    if yielding {
        for _ in 0..<1000 {
            if condition() { return }
            try Task.checkCancellation()
            await Task.yield()
        }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw WaitTimedOut(seconds: timeout, what: what()) }
        try await Task.sleep(nanoseconds: 200_000)
    }
}

extension CancellationLatency {
    /// A task that waits for nothing but its cancel, started before an SDK sample and cancelled
    /// right after the sample's send: its cancel → return is what the machine's scheduling alone
    /// cost at that instant (the same load, the sample's attempt still held), the reference the
    /// sample is compared with.
    struct ReferenceTwin {
        let task: Task<Double, Never>

        /// Started and waiting (a twin that never starts ends the experiment, as a stalled sample does).
        static func start(_ core: FakeFrontmailCore) async throws -> ReferenceTwin {
            let entered = Atomic(false)
            let task = Task { () -> Double in
                entered.store(true, ordering: .releasing)
                try? await waitUntilCancelled()
                return core.now()
            }
            do {
                try await waitUntil(timeout: stallLimit, "the reference task to start") {
                    entered.load(ordering: .acquiring)
                }
            } catch {
                task.cancel()
                throw error
            }
            return ReferenceTwin(task: task)
        }

        /// Cancel → return, in seconds, for a twin cancelled right after `cancelledAt`.
        func latency(since cancelledAt: Double) async -> Double {
            await task.value - cancelledAt
        }
    }

    /// Where the soak's sends are when they are cancelled.
    enum SoakPhase: String, Sendable, CaseIterable {
        /// In flight: a transport double holds the request (a 600 s attempt deadline pending).
        case inFlight
        /// In a backoff: the double answers 503 with `Retry-After: 300` and the send is cancelled
        /// during the five-minute wait it then schedules.
        case backoff
    }

    /// Memory held across a soak, in KiB: resident (what the system sees) and malloc's bytes in
    /// use (what is really held: it falls when memory is freed, and rises even when the pages were
    /// already resident). Heap is NaN where malloc cannot say.
    struct SoakGrowth: Sendable {
        var resident: Double
        var heap: Double
        /// KiB held per 1,000 cancellations: the median of the growth of ten equal batches (heap
        /// where it is measured, resident elsewhere), so a one-off jump (a cache filling, another
        /// thread's transient allocation) moves one batch and not the rate; a leak moves every batch.
        var perThousand: Double
    }

    /// Cancels `count` sends, one after another, each at `phase`: the SDK's own state only (no
    /// server, no ledger), so memory still held afterwards is a leak. A correct SDK frees a cancelled
    /// wait at once, however far away its deadline was. Growth after a warm-up of 1,000 cancellations.
    /// `clock` is a test seam (a client whose waits keep their memory until their deadline).
    static func soak(count: Int, phase: SoakPhase, clock: (any FrontmailScheduler)? = nil) async throws -> SoakGrowth {
        let rig = try SoakRig(phase: phase, clock: clock)
        for _ in 0..<1000 { try await rig.once() }
        let resident = residentKiB()
        let heap = heapInUseKiB()
        func held() -> Double { heap.isNaN ? residentKiB() : heapInUseKiB() }
        let batches = min(10, max(1, count))
        var mark = held()
        var steps: [Double] = []
        for batch in 0..<batches {
            let size = count / batches + (batch < count % batches ? 1 : 0)
            for _ in 0..<size { try await rig.once() }
            let now = held()
            steps.append((now - mark) / Double(max(size, 1)) * 1000)
            mark = now
        }
        return SoakGrowth(
            resident: residentKiB() - resident, heap: heapInUseKiB() - heap,
            perThousand: RatioEstimate(rounds: steps).value)
    }

    /// One client of the soak and its transport double: `once` starts a send, waits until it is at
    /// the phase, cancels it and waits for it to end.
    struct SoakRig: Sendable {
        let phase: SoakPhase
        let transport: any FrontmailTransport & EnteredCounting
        let observer = ProbeObserver()
        let client: Frontmail

        /// The client's clock, counting the waits and deadlines it was asked for.
        let clock: CountingClock

        init(phase: SoakPhase, clock: (any FrontmailScheduler)? = nil) throws {
            self.phase = phase
            transport = phase == .inFlight ? HoldingTransport() : RetryLaterTransport()
            self.clock = CountingClock(base: clock ?? SystemClock())
            let environment = SendEnvironment(clock: self.clock, observer: observer)
            client = try Frontmail(
                publicKey: "pk_soak", apiURL: URL(string: "http://soak.invalid")!,
                retry: RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10, maxRetryAfter: 600), timeout: 600,
                transport: transport, environment: environment)
        }

        /// Cancels only once the send waits where the phase says: its request held by the
        /// transport with the attempt's deadline set, or its backoff's wait asked of the clock (a
        /// cancel that came before the wait would test nothing). The waits poll between yields:
        /// each condition holds within microseconds.
        func once() async throws {
            let entered = transport.entered
            let deadlines = clock.deadlines
            let sleeps = clock.sleeps
            let client = self.client
            let task = Task {
                await OpenSends.counting { try? await client.send(templateID: "tpl_bench", params: ["soak": true]) }
            }
            switch phase {
            case .inFlight:
                try await waitUntil(timeout: stallLimit, yielding: true, "the send to enter the transport") {
                    transport.entered > entered && clock.deadlines > deadlines
                }
            case .backoff:
                try await waitUntil(timeout: stallLimit, yielding: true, "the send to start a backoff") {
                    clock.sleeps > sleeps
                }
            }
            // The wait was asked for on the send's thread and registers there before it suspends.
            await Task.yield()
            task.cancel()
            _ = await task.value
        }
    }

    /// malloc's bytes in use, in KiB (glibc; NaN elsewhere).
    static func heapInUseKiB() -> Double {
        let bytes = cpm_heap_in_use_bytes()
        return bytes < 0 ? .nan : Double(bytes) / 1024
    }
}

/// A clock that counts the backoff waits and attempt deadlines asked of it, then does what `base`
/// does.
final class CountingClock: WrappingClock {
    let base: any FrontmailScheduler
    private let counts = Mutex<(sleeps: Int, deadlines: Int)>((0, 0))

    init(base: any FrontmailScheduler) { self.base = base }

    var sleeps: Int { counts.withLock { $0.sleeps } }
    var deadlines: Int { counts.withLock { $0.deadlines } }

    func sleep(seconds: TimeInterval) async throws {
        counts.withLock { $0.sleeps += 1 }
        try await base.sleep(seconds: seconds)
    }
    func startDeadline(_ deadline: TimeInterval, onExpiry expire: @escaping @Sendable () -> Void) -> UInt64 {
        let token = base.startDeadline(deadline, onExpiry: expire)
        counts.withLock { $0.deadlines += 1 }
        return token
    }
}

/// A transport double that counts the requests handed to it.
protocol EnteredCounting: Sendable {
    var entered: Int { get }
}

/// Answers every request at once with 503 and `Retry-After: 300`.
final class RetryLaterTransport: FrontmailTransport, EnteredCounting {
    private let counter = Atomic<Int>(0)
    var entered: Int { counter.load(ordering: .acquiring) }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        counter.add(1, ordering: .releasing)
        return FrontmailHTTPResponse(
            status: 503, headers: ["Retry-After": "300", "Content-Type": "application/json"],
            body: Data(#"{"error":{"code":"service_unavailable","message":"soak"}}"#.utf8))
    }
}

/// Holds every request until the caller is cancelled.
final class HoldingTransport: FrontmailTransport, EnteredCounting {
    private let counter = Atomic<Int>(0)
    var entered: Int { counter.load(ordering: .acquiring) }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        counter.add(1, ordering: .releasing)
        try await waitUntilCancelled()
    }
}

extension CancellationLatency {
    static func rawSend(harness: FakeFrontmailHarness, key: String) async -> String {
        guard let session = harness.session else { return "no_session" }
        var request = URLRequest(url: harness.baseURL.appendingPathComponent("v1/send"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"template_id":"tpl_bench","template_params":{},"user_id":"pk_cancel"}"#.utf8)
        request.setValue("pk_cancel", forHTTPHeaderField: "X-Frontmail-Public-Key")
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        do {
            _ = try await session.data(for: request)
            return "ok"
        } catch let error as URLError {
            return error.code == .cancelled ? "cancelled" : "url_error_\(error.code.rawValue)"
        } catch {
            return error is CancellationError ? "cancelled" : "other"
        }
    }

    /// Resident memory of this process in KiB (Linux; NaN elsewhere).
    static func residentKiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}
