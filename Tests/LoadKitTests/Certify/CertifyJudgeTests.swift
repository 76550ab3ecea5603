import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// Each certify property on hand-built ledgers: the record of a correct client passes it, the
/// record of a client wrong in that one way fails it.
@Suite("certify: each property judged from a hand-built server record")
struct CertifyJudgeTests {
    static let keyA = "9d9230f7-141b-40c9-b293-c211e59a6b8f"
    static let keyB = "0b6f4c1e-77aa-4e0b-9c3d-5f1e2d3c4b5a"

    /// One request of send `send`: keys are indexed in `keys` (0: none).
    static func request(
        _ send: Int, key: UInt32 = 1, at arrival: Double, until finished: Double, status: UInt16 = 202,
        action: LedgerAction = .served, retryAfter: Double = .nan, effect: Bool = false, fingerprint: UInt64 = 7
    ) -> LedgerRecord {
        var record = LedgerRecord(arrival: arrival, connection: 1, endpoint: .send, keyID: key, attempt: 1)
        record.benchSendID = Int64(send)
        record.finished = finished
        record.status = status
        record.action = action
        record.retryAfter = retryAfter
        record.effect = effect
        record.fingerprint = fingerprint
        return record
    }

    static func verdict(
        _ property: ContractProperty, _ records: [LedgerRecord], keys: [String] = ["", keyA, keyB], sends: Int = 1,
        claim: ClientClaim = SDKCertifyClient.claim(), end: ClientEnd = .exited(0),
        weight: CertifyCase.Weight = .required
    ) -> CertifyVerdict {
        let certifyCase = CertifyCase(
            id: "9.9", name: "idempotency.test", group: .idempotency, title: "test", property: property,
            plan: FaultPlan(), sends: sends,
            concurrency: 1, weight: weight, deadline: 10)
        return CertifyJudge.judge(
            certifyCase, claim: claim, view: ServerView(records: records, keys: keys), end: end)
    }

    /// A 503 at 0 s, then a 202 after `wait` s.
    static func retried(after wait: Double, key second: UInt32 = 1, fingerprint: UInt64 = 7) -> [LedgerRecord] {
        [
            request(0, at: 0, until: 0.01, status: 503, action: .fault(.respond)),
            request(0, key: second, at: 0.01 + wait, until: 0.02 + wait, effect: true, fingerprint: fingerprint),
        ]
    }

    @Test("a send that never arrived fails every property; a client that hung, crashed or did not start fails")
    func endsAndArrivals() {
        #expect(Self.verdict(.reached, Self.retried(after: 0.05)).outcome == .pass)
        let missing = Self.verdict(.reached, Self.retried(after: 0.05), sends: 2)
        #expect(missing.outcome == .fail && missing.sends == [1])
        #expect(Self.verdict(.oneEffect, [], sends: 1).outcome == .fail)
        #expect(Self.verdict(.oneEffect, Self.retried(after: 0.05), end: .deadline(10)).outcome == .fail)
        #expect(Self.verdict(.oneEffect, Self.retried(after: 0.05), end: .crashed(signal: 11)).outcome == .fail)
        #expect(Self.verdict(.oneEffect, Self.retried(after: 0.05), end: .notStarted("no sh")).outcome == .fail)
        // The client's own exit status is not judged: the server's record is.
        #expect(Self.verdict(.oneEffect, Self.retried(after: 0.05), end: .exited(3)).outcome == .pass)
    }

    @Test("keys: present, a lowercase v4 UUID, the same on every attempt, one per send")
    func keys() {
        #expect(Self.verdict(.keyPresent, Self.retried(after: 0.05)).outcome == .pass)
        #expect(Self.verdict(.keyPresent, Self.retried(after: 0.05, key: 0)).outcome == .fail)
        #expect(Self.verdict(.keyV4, Self.retried(after: 0.05)).outcome == .pass)
        for wrong in [
            Self.keyA.uppercased(), "send-0", String(Self.keyA.dropLast()), "9d9230f7-141b-30c9-b293-c211e59a6b8f",
        ] {
            #expect(
                Self.verdict(.keyV4, Self.retried(after: 0.05), keys: ["", wrong, Self.keyB]).outcome == .fail,
                "\(wrong)")
        }
        #expect(Self.verdict(.sameKey, Self.retried(after: 0.05)).outcome == .pass)
        #expect(Self.verdict(.sameKey, Self.retried(after: 0.05, key: 2)).outcome == .fail)
        #expect(Self.verdict(.sameKey, Self.retried(after: 0.05, key: 0)).outcome == .fail)
        // A client that claims retries and made none shows nothing: not a pass.
        #expect(Self.verdict(.sameKey, Array(Self.retried(after: 0.05).suffix(1))).outcome == .fail)
        #expect(Self.verdict(.sameBody, Array(Self.retried(after: 0.05).suffix(1))).outcome == .fail)
        let two = [Self.request(0, at: 0, until: 0.01), Self.request(1, key: 2, at: 0, until: 0.01)]
        #expect(Self.verdict(.distinctKeys, two, sends: 2).outcome == .pass)
        let shared = [Self.request(0, at: 0, until: 0.01), Self.request(1, at: 0, until: 0.01)]
        let verdict = Self.verdict(.distinctKeys, shared, sends: 2)
        #expect(verdict.outcome == .fail && verdict.sends == [0, 1])
    }

    @Test("the body: the same bytes on every attempt; one effect per send")
    func bodyAndEffects() {
        #expect(Self.verdict(.sameBody, Self.retried(after: 0.05)).outcome == .pass)
        #expect(Self.verdict(.sameBody, Self.retried(after: 0.05, fingerprint: 8)).outcome == .fail)
        #expect(Self.verdict(.oneEffect, Self.retried(after: 0.05)).outcome == .pass)
        var twice = Self.retried(after: 0.05)
        twice[0].effect = true
        #expect(Self.verdict(.oneEffect, twice).outcome == .fail)
    }

    @Test(
        "retrying: a retryable failure with attempts left is retried, up to the claimed attempts, never after a final answer"
    )
    func retrying() {
        let gaveUp = [Self.request(0, at: 0, until: 0.01, status: 503, action: .fault(.respond))]
        #expect(Self.verdict(.retried, Self.retried(after: 0.05)).outcome == .pass)
        #expect(Self.verdict(.retried, gaveUp).outcome == .fail)
        let reset = [Self.request(0, at: 0, until: 0.01, status: 0, action: .fault(.reset))]
        #expect(Self.verdict(.retried, reset).outcome == .fail)
        var oneAttempt = SDKCertifyClient.claim()
        oneAttempt.maxAttempts = 1
        #expect(Self.verdict(.retried, gaveUp, claim: oneAttempt).outcome == .notApplicable)
        let five = (0..<5).map {
            Self.request(0, at: Double($0), until: Double($0) + 0.01, status: 503, action: .fault(.respond))
        }
        #expect(Self.verdict(.attemptBound, Array(five.prefix(4))).outcome == .pass)
        #expect(Self.verdict(.attemptBound, five).outcome == .fail)
        #expect(Self.verdict(.attemptBound, five, claim: oneAttempt).outcome == .fail)
        let final400 = [
            Self.request(0, at: 0, until: 0.01, status: 400, action: .fault(.respond)),
            Self.request(0, at: 0.1, until: 0.11, status: 400, action: .fault(.respond)),
        ]
        #expect(Self.verdict(.noRetryAfterFinal, Array(final400.prefix(1))).outcome == .pass)
        #expect(Self.verdict(.noRetryAfterFinal, final400).outcome == .fail)
        // A 429 is not final; a 2xx whose body was cut is not an answer.
        var after429 = final400
        after429[0].status = 429
        #expect(Self.verdict(.noRetryAfterFinal, after429).outcome == .pass)
        var truncated = final400
        truncated[0].status = 202
        truncated[0].action = .fault(.truncate)
        #expect(Self.verdict(.noRetryAfterFinal, truncated).outcome == .pass)
    }

    @Test("Retry-After: no retry sooner than the server meant; over 60 s, none at all")
    func retryAfter() {
        var obeyed = Self.retried(after: 1.02)
        obeyed[0].retryAfter = 1
        #expect(Self.verdict(.retryAfterObeyed, obeyed).outcome == .pass)
        var early = Self.retried(after: 0.5)
        early[0].retryAfter = 1
        #expect(Self.verdict(.retryAfterObeyed, early).outcome == .fail)
        // No retry at all is not obedience: nothing was judged.
        #expect(Self.verdict(.retryAfterObeyed, Array(obeyed.prefix(1))).outcome == .fail)
        var overLimit = Self.retried(after: 61)
        overLimit[0].retryAfter = 61
        #expect(Self.verdict(.retryAfterLimit, overLimit).outcome == .fail)
        #expect(Self.verdict(.retryAfterLimit, Array(overLimit.prefix(1))).outcome == .pass)
        #expect(Self.verdict(.retryAfterLimit, Array(overLimit.prefix(1)), end: .deadline(15)).outcome == .fail)
    }

    /// A send failing three times with 503 after waits `waits`.
    @Test(
        "timeouts: a held attempt ends within the claimed timeout; one held to the end fails; informational cases say what they would be"
    )
    func timeouts() {
        let claim = SDKCertifyClient.claim()
        let hung = [
            Self.request(0, at: 0, until: 2.01, status: 0, action: .fault(.hang)),
            Self.request(0, at: 2.1, until: 2.11, effect: true),
        ]
        #expect(Self.verdict(.attemptTimeout, hung, claim: claim).outcome == .pass)
        var long = hung
        long[0].finished = 9
        #expect(Self.verdict(.attemptTimeout, long, claim: claim).outcome == .fail)
        long[0].finished = .nan
        #expect(Self.verdict(.attemptTimeout, long, claim: claim).outcome == .fail)
        #expect(Self.verdict(.attemptTimeout, Self.retried(after: 0.1), claim: claim).outcome == .fail)
        let slow = [Self.request(0, at: 0, until: 20, action: .fault(.slowBody), effect: true)]
        let informational = Self.verdict(.attemptTimeout, slow, claim: claim, weight: .informational)
        #expect(informational.outcome == .informational && informational.recommendation == .fail)
    }

    /// A status read at `arrival` answered `status` (by plan rule `rule`; -1: by the fake itself).
    static func statusRead(at arrival: Double, status: UInt16, tokenInURL: Bool = false, rule: Int16 = 0)
        -> LedgerRecord
    {
        var record = LedgerRecord(arrival: arrival, connection: 2, endpoint: .status, keyID: 0, attempt: 1)
        record.finished = arrival + 0.001
        record.status = status
        record.rule = status == 200 ? -1 : rule
        if tokenInURL { record.defects.insert(.queryToken) }
        return record
    }

    @Test(
        "status reads: the token in its header, a 5xx retried, a 404 final; NOT APPLICABLE to a client that does not read"
    )
    func statusReads() {
        let send = [Self.request(0, at: 0, until: 0.01, effect: true)]
        let claim = SDKCertifyClient.claim()
        #expect(
            Self.verdict(.statusRead, send + [Self.statusRead(at: 0.1, status: 200)], claim: claim).outcome == .pass)
        #expect(Self.verdict(.statusRead, send, claim: claim).outcome == .fail)
        let inURL = Self.verdict(
            .statusRead, send + [Self.statusRead(at: 0.1, status: 200, tokenInURL: true)], claim: claim)
        #expect(inURL.outcome == .fail && inURL.detail.contains("URL"))
        let retried = [Self.statusRead(at: 0.1, status: 503), Self.statusRead(at: 0.2, status: 200)]
        #expect(Self.verdict(.statusRead, send + retried, claim: claim).outcome == .pass)
        #expect(
            Self.verdict(.statusRead, send + [Self.statusRead(at: 0.1, status: 503)], claim: claim).outcome == .fail)
        let after404 = [Self.statusRead(at: 0.1, status: 404), Self.statusRead(at: 0.2, status: 404)]
        #expect(Self.verdict(.statusRead, send + Array(after404.prefix(1)), claim: claim).outcome == .pass)
        #expect(Self.verdict(.statusRead, send + after404, claim: claim).outcome == .fail)
        // A read without its token, or with another message's: the fake's own 404, not the plan's.
        let unmatched = Self.verdict(
            .statusRead, send + [Self.statusRead(at: 0.1, status: 404, rule: -1)], claim: claim)
        #expect(unmatched.outcome == .fail && unmatched.detail.contains("could not match"))
        let planned = Self.verdict(.statusRead, send + Array(after404.prefix(1)), claim: claim)
        #expect(!planned.detail.contains("matched the last"))
        #expect(
            Self.verdict(.statusRead, send + [Self.statusRead(at: 0.1, status: 200)], claim: claim).detail.contains(
                "matched the last"))
        var silent = claim
        silent.statusReads = false
        #expect(Self.verdict(.statusRead, send, claim: silent).outcome == .notApplicable)
    }

    @Test("a timeout case waits for the claimed timeout: a 25 s claim gets the time to time out and retry")
    func timeoutDeadlines() throws {
        let hung = try #require(CertifyCase.all.first { $0.id == "6.1" })
        let retried = try #require(CertifyCase.all.first { $0.id == "6.2" })
        let other = try #require(CertifyCase.all.first { $0.id == "1.1" })
        var claim = SDKCertifyClient.claim()
        claim.timeout = TimeSpan(seconds: 2)
        #expect(hung.deadline(for: claim) == hung.deadline)
        claim.timeout = TimeSpan(seconds: 25)
        let needed = 25 + CertifyJudge.lateTolerance(cap: 25) + claim.cap(retry: 0)
        #expect(hung.deadline(for: claim) > needed && retried.deadline(for: claim) > needed)
        #expect(other.deadline(for: claim) == other.deadline)
        // No claimed timeout: the contract's 15 s, as the judge assumes.
        claim.timeout = nil
        #expect(hung.deadline(for: claim) > 15 + CertifyJudge.lateTolerance(cap: 15))
    }

    @Test("case patterns: names, numbers, globs and groups; 40 or more cases, names and numbers unique")
    func catalog() {
        let all = CertifyCase.all
        #expect(all.count >= 40)
        #expect(Set(all.map(\.id)).count == all.count && Set(all.map(\.name)).count == all.count)
        for certifyCase in all {
            let parts = certifyCase.name.split(separator: ".", maxSplits: 1).map(String.init)
            #expect(parts.first == certifyCase.group.rawValue && parts.count == 2, "\(certifyCase.name)")
            #expect(parts.last?.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } == true)
            #expect(CertifyCase.named(certifyCase.name)?.id == certifyCase.id)
            #expect(CertifyCase.named(certifyCase.id)?.name == certifyCase.name)
            #expect(CertifyCase.isNumber(certifyCase.id) && !CertifyCase.isNumber(certifyCase.name))
        }
        #expect(all.filter { $0.matches("retry-after.fraction") }.map(\.id) == ["2.3"])
        #expect(all.filter { $0.matches("backoff.*") }.count == all.filter { $0.group == .backoff }.count)
        #expect(CertifyCase.named("retry-after.nothing") == nil && CertifyCase.named("12.1") == nil)
        #expect(all.filter { $0.matches("2.*") }.allSatisfy { $0.group == .retryAfter })
        #expect(all.filter { $0.matches("backoff") }.count == all.filter { $0.group == .backoff }.count)
        #expect(all.filter { $0.matches("1.1") }.map(\.id) == ["1.1"])
        // 1.1 and 1.10-1.15.
        #expect(all.filter { $0.matches("1.1*") }.count == 7)
        #expect(Glob.matches("*", "") && Glob.matches("a?c", "abc") && !Glob.matches("a?c", "ac"))
        // Every plan is one the scenario files could state: its range checks hold.
        for certifyCase in all {
            #expect(throws: Never.self, "\(certifyCase.id)") { try certifyCase.plan.validate() }
        }
    }
}

@Suite("certify: the order cases run in")
struct CertifyPhaseTests {
    @Test("required timed cases run alone after the rest; the others, informational ones too, run side by side")
    func timedCasesAlone() throws {
        let all = CertifyCase.all
        let phases = CertifyRunner.phases(all, jobs: 4)
        #expect(phases.map(\.width) == [4, 1])
        let alone = phases[1].indices.map { all[$0] }
        #expect(!alone.isEmpty && alone.allSatisfy { $0.dependsOnHostSpeed && $0.weight == .required })
        #expect(phases[0].indices.map { all[$0] }.allSatisfy { !$0.dependsOnHostSpeed || $0.weight == .informational })
        #expect(Set(phases.flatMap(\.indices)) == Set(all.indices) && phases.flatMap(\.indices).count == all.count)
        let jitter = try #require(all.firstIndex { $0.name == "backoff.jitter-distribution" })
        let trickle = try #require(all.firstIndex { $0.name == "timeouts.trickled-body" })
        #expect(phases[1].indices.contains(jitter) && phases[0].indices.contains(trickle))
        #expect(CertifyRunner.phases(all, jobs: 0).map(\.width) == [1, 1])
    }
}
