import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// The timing properties (waits, jitter, independence) judged from hand-built server records.
@Suite("certify: waits, jitter and independence judged from a hand-built server record")
struct CertifyJudgeTimingTests {
    static func waited(_ waits: [Double], send: Int = 0, start: Double = 0) -> [LedgerRecord] {
        var time = start
        var records: [LedgerRecord] = []
        for wait in waits {
            records.append(
                CertifyJudgeTests.request(
                    send, key: UInt32(send + 1), at: time, until: time, status: 503, action: .fault(.respond)))
            time += wait
        }
        records.append(CertifyJudgeTests.request(send, key: UInt32(send + 1), at: time, until: time, effect: true))
        return records
    }

    @Test("waits: inside the claimed jitter's bounds; full, equal and none each judged by their own")
    func waits() {
        var claim = SDKCertifyClient.claim()
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.05, 0.1, 0.3]), claim: claim).outcome == .pass)
        // The third cap is 0.4 s; 1 s is past it and its tolerance.
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.05, 0.1, 1.0]), claim: claim).outcome == .fail)
        claim.jitter = .none
        #expect(CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.1, 0.2, 0.4]), claim: claim).outcome == .pass)
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.01, 0.2, 0.4]), claim: claim).outcome == .fail)
        claim.jitter = .equal
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.06, 0.15, 0.3]), claim: claim).outcome == .pass)
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0.06, 0.01, 0.3]), claim: claim).outcome == .fail)
        claim.jitter = .unknown
        #expect(
            CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([9, 9, 9]), claim: claim).outcome == .notApplicable)
        // Explicit delays replace the formula: urllib3 retries the first time at once.
        claim.jitter = .none
        claim.delays = [.zero, TimeSpan(seconds: 0.2), TimeSpan(seconds: 0.4)]
        #expect(CertifyJudgeTests.verdict(.waitsInPolicy, Self.waited([0, 0.2, 0.4]), claim: claim).outcome == .pass)
    }

    @Test("jitter: uniform waits pass the KS test over 150 waits, waits at the cap or squared draws fail it")
    func jitter() {
        var random = SeededRandom(seed: 42)
        let claim = SDKCertifyClient.claim()
        func sends(_ draw: (Double) -> Double) -> [LedgerRecord] {
            (0..<50).flatMap { send in
                Self.waited([0.1, 0.2, 0.4].map { $0 * draw(random.unit()) }, send: send, start: Double(send) * 10)
            }
        }
        let keys = [""] + (0..<50).map { _ in UUID().uuidString.lowercased() }
        #expect(
            CertifyJudgeTests.verdict(.jitterUniform, sends { $0 }, keys: keys, sends: 50, claim: claim).outcome
                == .pass)
        #expect(
            CertifyJudgeTests.verdict(.jitterUniform, sends { $0 * $0 }, keys: keys, sends: 50, claim: claim).outcome
                == .fail)
        #expect(
            CertifyJudgeTests.verdict(.jitterUniform, sends { _ in 1 }, keys: keys, sends: 50, claim: claim).outcome
                == .fail)
        #expect(
            CertifyJudgeTests.verdict(.jitterUniform, Self.waited([0.05, 0.1, 0.2]), claim: claim).outcome == .fail)
        var none = claim
        none.jitter = .none
        #expect(
            CertifyJudgeTests.verdict(.jitterUniform, sends { _ in 1 }, keys: keys, sends: 50, claim: none).outcome
                == .notApplicable
        )
    }

    @Test(
        "jitter on a busy host: a correct client whose every attempt comes 8 ms after its wait passes with caps of 10-40 ms; equal and no jitter still fail (squared draws hide under 8 ms of 10: see the next test)"
    )
    func jitterWithTurnaround() {
        var random = SeededRandom(seed: 7)
        var claim = SDKCertifyClient.claim()
        claim.baseDelay = TimeSpan(seconds: 0.01)
        claim.maxDelay = TimeSpan(seconds: 0.04)
        let turnaround = 0.008
        func sends(_ draw: (Double) -> Double) -> [LedgerRecord] {
            (0..<50).flatMap { send in
                Self.waited(
                    [0.01, 0.02, 0.04].map { $0 * draw(random.unit()) + turnaround }, send: send,
                    start: Double(send) * 10)
            }
        }
        let keys = [""] + (0..<50).map { _ in UUID().uuidString.lowercased() }
        let correct = CertifyJudgeTests.verdict(.jitterUniform, sends { $0 }, keys: keys, sends: 50, claim: claim)
        #expect(correct.outcome == .pass, "\(correct.detail)")
        #expect(correct.detail.contains("client's own time"))
        for wrong: (Double) -> Double in [{ 0.5 + $0 / 2 }, { _ in 1 }] {
            let verdict = CertifyJudgeTests.verdict(.jitterUniform, sends(wrong), keys: keys, sends: 50, claim: claim)
            #expect(verdict.outcome == .fail, "\(verdict.detail)")
        }
        // Independence: fifty sends failing together, waits drawn apart or all the same.
        #expect(
            CertifyJudgeTests.verdict(.independentDraws, sends { $0 }, keys: keys, sends: 50, claim: claim).outcome
                == .pass)
        let herd = CertifyJudgeTests.verdict(.independentDraws, sends { _ in 1 }, keys: keys, sends: 50, claim: claim)
        #expect(herd.outcome == .fail && herd.figure < 0.01)
    }

    @Test(
        "jitter on a loaded host: a correct client whose own time varies up to 50 ms on caps of 100-400 ms passes; no, equal and squared jitter under the same load fail"
    )
    func jitterWithVaryingTurnaround() {
        var random = SeededRandom(seed: 11)
        let claim = SDKCertifyClient.claim()
        // Mostly a few milliseconds (exponential, mean 4 ms), one attempt in six 0-50 ms more: the
        // shape measured for a Python client on a runner with a load of 2-3.
        func ownTime() -> Double {
            -0.004 * log(1 - random.unit()) + (random.unit() < 1.0 / 6 ? 0.05 * random.unit() : 0)
        }
        func sends(_ draw: (Double) -> Double) -> [LedgerRecord] {
            (0..<50).flatMap { send in
                Self.waited(
                    [0.1, 0.2, 0.4].map { $0 * draw(random.unit()) + ownTime() }, send: send, start: Double(send) * 10)
            }
        }
        let keys = [""] + (0..<50).map { _ in UUID().uuidString.lowercased() }
        // Several seeds' worth of runs: a correct client must pass every one at α = 10⁻⁴.
        for _ in 0..<20 {
            let correct = CertifyJudgeTests.verdict(.jitterUniform, sends { $0 }, keys: keys, sends: 50, claim: claim)
            #expect(correct.outcome == .pass, "\(correct.detail)")
        }
        for wrong: (Double) -> Double in [{ 0.5 + $0 / 2 }, { $0 * $0 }, { _ in 1 }] {
            let verdict = CertifyJudgeTests.verdict(.jitterUniform, sends(wrong), keys: keys, sends: 50, claim: claim)
            #expect(verdict.outcome == .fail, "\(verdict.detail)")
        }
    }

    @Test(
        "independence: judged against the waits the server saw, so a herd retrying after 10 ms fails under a claimed 1 ms base; equal and additive jitter pass"
    )
    func independenceAgainstObservedWaits() {
        var random = SeededRandom(seed: 5)
        var claim = SDKCertifyClient.claim()
        claim.baseDelay = TimeSpan(seconds: 0.001)
        claim.jitter = .unknown
        func sends(_ wait: () -> Double) -> [LedgerRecord] {
            (0..<20).flatMap { send in Self.waited([wait()], send: send, start: Double(send) * 0.0001) }
        }
        let keys = [""] + (0..<20).map { _ in UUID().uuidString.lowercased() }
        // No jitter, 10 ms, the client's scheduling adding up to 0.5 ms.
        let herd = CertifyJudgeTests.verdict(
            .independentDraws, sends { 0.01 + 0.0005 * random.unit() }, keys: keys, sends: 20, claim: claim)
        #expect(herd.outcome == .fail && herd.detail.contains("herd"), "\(herd.detail)")
        let equal = CertifyJudgeTests.verdict(
            .independentDraws, sends { 0.05 + 0.05 * random.unit() }, keys: keys, sends: 20, claim: claim)
        #expect(equal.outcome == .pass, "\(equal.detail)")
        // stamina: an exponential wait plus a uniform draw of up to its base.
        let additive = CertifyJudgeTests.verdict(
            .independentDraws, sends { 0.1 + 0.1 * random.unit() }, keys: keys, sends: 20, claim: claim)
        #expect(additive.outcome == .pass, "\(additive.detail)")
    }

    @Test(
        "additive jitter (stamina's): the cap plus a draw on [0, jitterMax) passes the bounds and the KS test; full jitter or no jitter under that claim fails; the clamp at maxDelay is left out"
    )
    func additiveJitter() {
        var random = SeededRandom(seed: 13)
        var claim = SDKCertifyClient.claim()
        claim.jitter = .additive
        claim.jitterMax = TimeSpan(seconds: 0.1)
        claim.maxDelay = TimeSpan(seconds: 0.45)
        // Caps 0.1, 0.2, 0.4: the third, 0.4 + up to 0.1, is clamped at 0.45, so not a uniform draw.
        #expect(claim.draw(retry: 0)! == (0.1, 0.1))
        #expect(claim.drawIsUniform(retry: 1) && !claim.drawIsUniform(retry: 2))
        #expect(claim.draw(retry: 2)!.width == 0.45 - 0.4)
        func sends(_ draw: (Double, Int) -> Double) -> [LedgerRecord] {
            (0..<50).flatMap { send in
                Self.waited(
                    [0.1, 0.2, 0.4].enumerated().map { retry, cap in draw(cap, retry) }, send: send,
                    start: Double(send) * 10)
            }
        }
        let keys = [""] + (0..<50).map { _ in UUID().uuidString.lowercased() }
        let stamina = sends { cap, _ in min(0.45, cap + 0.1 * random.unit()) + 0.002 }
        for property in [ContractProperty.jitterUniform, .waitsInPolicy] {
            let verdict = CertifyJudgeTests.verdict(property, stamina, keys: keys, sends: 50, claim: claim)
            #expect(verdict.outcome == .pass, "\(property): \(verdict.detail)")
        }
        let full = CertifyJudgeTests.verdict(
            .jitterUniform, sends { cap, _ in cap * random.unit() }, keys: keys, sends: 50, claim: claim)
        #expect(full.outcome == .fail, "\(full.detail)")
        let fixed = CertifyJudgeTests.verdict(
            .jitterUniform, sends { cap, _ in cap }, keys: keys, sends: 50, claim: claim)
        #expect(fixed.outcome == .fail, "\(fixed.detail)")
        let early = CertifyJudgeTests.verdict(
            .waitsInPolicy, sends { cap, _ in cap * random.unit() }, keys: keys, sends: 50, claim: claim)
        #expect(early.outcome == .fail, "\(early.detail)")
    }
}
