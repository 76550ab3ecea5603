import FakeFrontmail
import Foundation
import Frontmail
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
    var description: String { "a condition was not met within \(seconds) s" }
}

/// Polls `condition` every 0.2 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw WaitTimedOut(seconds: timeout) }
        try await Task.sleep(nanoseconds: 200_000)
    }
}

extension CancellationLatency {
    /// Cancel → return of a task that waits for nothing but its cancel, in seconds: the reference
    /// an SDK sample is compared with, taken under the same load right after it.
    static func referenceLatency(_ core: FakeFrontmailCore) async throws -> Double {
        let entered = Atomic(false)
        let waiting = Task { () -> Double in
            entered.store(true, ordering: .releasing)
            try? await waitUntilCancelled()
            return core.now()
        }
        try await waitUntil(timeout: 30) { entered.load(ordering: .acquiring) }
        let cancelledAt = core.now()
        waiting.cancel()
        return await waiting.value - cancelledAt
    }

    /// Cancels `count` sends, one after another, while a transport double holds each request:
    /// the SDK's own state only (no server, no ledger), so growth in resident memory is a leak.
    /// Returns the growth in KiB after a warm-up of 1,000 cancellations.
    public static func soak(count: Int) async throws -> Double {
        let transport = HoldingTransport()
        let client = try Frontmail(
            publicKey: "pk_soak", apiURL: URL(string: "http://soak.invalid")!, retry: .default, timeout: 600,
            transport: transport, environment: .live)
        func once() async throws {
            let entered = transport.entered
            let task = Task { try? await client.send(templateID: "tpl_bench", params: ["soak": true]) }
            try await waitUntil(timeout: 10) { transport.entered > entered }
            task.cancel()
            _ = await task.value
        }
        for _ in 0..<1000 { try await once() }
        let before = residentKiB()
        for _ in 0..<count { try await once() }
        return residentKiB() - before
    }
}

/// Holds every request until the caller is cancelled.
final class HoldingTransport: FrontmailTransport {
    private let counter = Atomic<Int>(0)
    var entered: Int { counter.load(ordering: .acquiring) }

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        counter.add(1, ordering: .releasing)
        try await waitUntilCancelled()
    }
}
