import FakeFrontmail
import Foundation
import Frontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures, at the start of a run, the capacity a calibrated load is a fraction of: the reference
/// client against a fresh fake (same emulator config, no faults) for `window` seconds with
/// `concurrency` requests in flight. What "60 %" meant on this machine goes into the summary.
public enum Calibration {
    /// The measuring window, in seconds (documented in docs/scenarios.md).
    public static let window = 1.0
    public static let concurrency = 64

    /// Sends per second the reference sustained.
    static func measure(_ reference: CalibratedRate.Reference, scenario: Scenario) async throws -> Double {
        let core = FakeFrontmailCore(config: scenario.server, seed: scenario.seed)
        let frontEnd: FrontEnd = reference == .rawURLSession ? .socket : .inProcess
        let options = FakeFrontmailHarness.SessionOptions(
            maxConnections: max(concurrency, scenario.client.maxConnections))
        return try await withFakeFrontmail(frontEnd: frontEnd, core: core, session: options) { fake in
            let url = fake.baseURL.appendingPathComponent("v1/send")
            let raw = RawRequest(url: url)
            let (rate, _) = await closedLoopRate(concurrency: concurrency, seconds: window) {
                switch reference {
                case .rawURLSession:
                    guard let session = fake.session else { return false }
                    return await raw.send(in: session)
                case .inProcessCore:
                    let request = FrontmailHTTPRequest(
                        method: "POST", url: url,
                        headers: FrontmailHTTPHeaders([
                            ("Content-Type", "application/json"), ("X-Frontmail-Public-Key", "pk_bench"),
                            ("Idempotency-Key", UUID().uuidString.lowercased()),
                        ]), body: raw.body)
                    return (try? await fake.transport.send(request))?.status == 202
                }
            }
            return rate
        }
    }

    /// Successful calls per second of `one`, called back to back from `concurrency` tasks for
    /// `seconds`, and the number that failed.
    public static func closedLoopRate(
        concurrency: Int, seconds: Double, _ one: @escaping @Sendable () async -> Bool
    ) async -> (rate: Double, failures: Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let (done, failed) = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    // At least one call each: a worker started late on a busy machine still counts.
                    var (done, failed) = (0, 0)
                    repeat {
                        if await one() { done += 1 } else { failed += 1 }
                    } while DispatchTime.now().uptimeNanoseconds < deadline && !Task.isCancelled
                    return (done, failed)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (Double(done) / elapsed, failed)
    }
}
