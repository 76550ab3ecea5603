import FakeFrontmail
import Foundation
import Frontmail
import TestSupport
import Testing

@testable import LoadKit

/// The outage check: the closed form against exact sums and sampling, the real SDK against the
/// closed form, and a client that sneaks in a reconnect the policy does not have.
@Suite("tune: the outage check against its closed form", .onItsOwnThread)
struct OutageCheckTests {
    static let outage = """
        {"name": "o", "seeds": 2,
         "base": {"timeScale": 0.01, "load": {"type": "open", "policyTime": true, "rate": 100, "duration": "4s", "maxInFlight": 5000}},
         "environments": [{"name": "outage", "rules": [{"match": {"from": "1s", "to": "3s"}, "action": {"type": "refuse"}}]}],
         "grid": {"maxRetries": [0, 2], "baseDelay": ["300ms"], "maxDelay": ["10s"], "timeout": ["5s"]}}
        """

    @Test("P(S < x) for sums of uniforms: exact for two equal widths, and as sampled for unequal ones")
    func sumOfUniforms() {
        let two = SumOfUniforms(widths: [1, 1], upTo: 2)
        #expect(abs(two.probabilityBelow(0.5) - 0.125) < 1e-6)
        #expect(abs(two.probabilityBelow(1.5) - 0.875) < 1e-6)
        #expect(two.probabilityBelow(0) == 0 && abs(two.probabilityBelow(2) - 1) < 1e-9)
        let none = SumOfUniforms(widths: [0, 0], upTo: 1)
        #expect(none.probabilityBelow(0) == 0 && none.probabilityBelow(1e-9) == 1)
        let widths = [0.3, 0.6, 1.2, 2.4]
        let sum = SumOfUniforms(widths: widths, upTo: 5)
        var random = SeededRandom(seed: 3)
        let samples = (0..<200_000).map { _ in widths.reduce(0) { $0 + $1 * random.unit() } }
        for x in [0.5, 1.5, 2.25, 3.5] {
            let sampled = Double(samples.filter { $0 < x }.count) / Double(samples.count)
            // Sampling error at 200,000 draws is at most 0.0012 (one standard deviation).
            #expect(abs(sum.probabilityBelow(x) - sampled) < 0.005, "x \(x)")
        }
    }

    @Test("the model: sends outside the window succeed; with no retries every send inside fails")
    func model() {
        let schedule = (0..<400).map { Double($0) / 100 }
        let none = OutageCheck.model(
            window: (1, 3), schedule: schedule,
            policy: PolicyPoint(
                maxRetries: 0, baseDelay: TimeSpan(seconds: 0.3), maxDelay: TimeSpan(seconds: 10),
                timeout: TimeSpan(seconds: 5)))
        #expect(none.success == 0.5 && none.variance == 0)
        let two = OutageCheck.model(
            window: (1, 3), schedule: schedule,
            policy: PolicyPoint(
                maxRetries: 2, baseDelay: TimeSpan(seconds: 0.3), maxDelay: TimeSpan(seconds: 10),
                timeout: TimeSpan(seconds: 5)))
        // Inside, a send escapes when its two waits (U(0, 0.3) + U(0, 0.6), mean 0.45) outlast the
        // rest of the window: about 0.45 s worth of the 2 s window's 200 sends.
        #expect(abs(two.success - (200 + 45) / 400) < 0.005)
        #expect(two.variance > 0)
    }

    @Test("the real SDK agrees with the closed form; a client with a hidden reconnect does not")
    func sdkAgrees() async throws {
        let tune = try TuneTests.tune(Self.outage)
        let correct = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 2).run())
        // The grid's two policies and the default (r3-b300ms-m10s-t15s).
        #expect(correct.outageChecks.count == 3 && correct.outageChecks.allSatisfy(\.agrees), "\(correct.outageCSV)")
        #expect(correct.correct && correct.text.contains("3 outage cells agree"))
        // No retries: exactly the 200 sends due inside the window fail, in every seed.
        #expect(correct.outageChecks.first { $0.policy.maxRetries == 0 }?.success.measured == 0.5)
        var broken = TuneRunner(tune: tune, jobs: 2)
        broken.seams.transportWrapper = { HiddenReconnectTransport(inner: $0) }
        let report = TuneReport(tune: tune, cells: await broken.run())
        #expect(report.outageChecks.contains { !$0.agrees && $0.success.z > 4 }, "\(report.outageCSV)")
        #expect(!report.correct && report.text.contains("outage cells disagree"))
    }
}

/// Tries a refused connection once more, a second later, inside the transport: attempts the
/// policy does not have, which the outage's closed form catches.
struct HiddenReconnectTransport: FrontmailTransport {
    let inner: any FrontmailTransport
    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        do {
            return try await inner.send(request)
        } catch let error as URLError where error.code == .cannotConnectToHost {
            guard let clock = (inner as? InProcessTransport)?.core.clock else { throw error }
            try await clock.sleep(seconds: 1)
            return try await inner.send(request)
        }
    }
}
