import FakeFrontmail
import Foundation

/// How a client's run of one case ended.
package enum ClientEnd: Sendable, Hashable {
    /// It exited by itself (its status is not judged: the server's record is).
    case exited(Int32)
    /// It was still running at the case's deadline and was stopped.
    case deadline(Double)
    /// A signal this run did not send ended it.
    case crashed(signal: Int32)
    /// It could not be started.
    case notStarted(String)
}

/// A case's verdict from the server's record of what the client did, its claim, and how its
/// process ended; never from anything the client says about itself but its claimed policy.
enum CertifyJudge {
    /// A retry may come this much before the Retry-After the server meant (the client's reading
    /// of a whole-second HTTP date, and loopback's clock): 50 ms.
    static let earlyTolerance = 0.05
    /// A wait may run this far past its cap (process start, scheduling on a loaded host).
    static func lateTolerance(cap: Double) -> Double { 0.1 * cap + 0.3 }
    /// Fewer waits than this make no distribution test.
    static let jitterMinimum = 30
    /// The KS test's significance: a correct client fails it once in 10,000 runs.
    static let jitterAlpha = 1e-4
    /// The most of a client's own time between attempts the jitter test allows a wait (seconds).
    static let turnaroundAllowance = 0.25
    /// First waits of sends that failed together spread (standard deviation) at least this share
    /// of their mean: full jitter spreads 0.58, equal jitter 0.19, stamina's additive jitter
    /// 0.11-0.22 here (the client's own time adds to the mean), a fixed wait only by the client's
    /// scheduling (0.001-0.034 measured for curl and the no-jitter SDK).
    static let independenceShare = 0.05

    static func judge(
        _ certifyCase: CertifyCase, claim: ClientClaim, view: ServerView, end: ClientEnd
    ) -> CertifyVerdict {
        var verdict = judgeRecord(certifyCase, claim: claim, view: view, end: end)
        if certifyCase.weight == .informational, verdict.outcome == .pass || verdict.outcome == .fail {
            verdict.recommendation = verdict.outcome
            verdict.outcome = .informational
        }
        return verdict
    }

    private static func judgeRecord(
        _ certifyCase: CertifyCase, claim: ClientClaim, view: ServerView, end: ClientEnd
    ) -> CertifyVerdict {
        let property = certifyCase.property
        if let reason = certifyCase.notApplicable(to: claim) {
            return CertifyVerdict(outcome: .notApplicable, detail: reason)
        }
        switch end {
        case .notStarted(let reason): return .fail("the client could not be started: \(reason)")
        case .crashed(let signal):
            return .fail(
                "the client crashed (signal \(signal)); its output, a backtrace if it printed one, is in the case's client.log"
            )
        case .deadline(let seconds):
            let note = property == .retryAfterLimit ? " (a Retry-After over 60 s must end the send at once)" : ""
            return .fail("the client was still running after \(format(seconds)) s and was stopped\(note)")
        case .exited: break
        }
        let missing = (0..<certifyCase.sends).filter { view.sends[$0] == nil }
        if !missing.isEmpty {
            return .fail("\(missing.count) of \(certifyCase.sends) sends never reached the server", sends: missing)
        }
        if view.unattributed > 0, property == .sameBody {
            return .fail("\(view.unattributed) requests carried a body that names no send")
        }
        return judgeProperty(certifyCase, claim: claim, view: view)
    }

    private static func judgeProperty(
        _ certifyCase: CertifyCase, claim: ClientClaim, view: ServerView
    ) -> CertifyVerdict {
        let sends = view.sends.sorted { $0.key < $1.key }
        switch certifyCase.property {
        case .reached:
            return .pass("all \(certifyCase.sends) sends reached the server")
        case .keyPresent, .keyV4, .sameKey, .distinctKeys, .sameBody, .oneEffect:
            return judgeIdempotency(certifyCase.property, sends, view: view, planned: certifyCase.sends)
        case .retried:
            return judgeRetried(sends, claim: claim)
        case .attemptBound, .amplification:
            let broken = sends.filter {
                ContractProperty.overAttempts(requests: $0.value.count, maxAttempts: claim.maxAttempts)
            }.map(\.key)
            let perSend = Double(view.requests) / Double(max(1, certifyCase.sends))
            return broken.isEmpty
                ? .pass(
                    "\(format(perSend)) requests per send, at most \(claim.maxAttempts) claimed", figure: perSend)
                : .fail(
                    "\(broken.count) sends made more than the claimed \(claim.maxAttempts) attempts", sends: broken,
                    figure: perSend)
        case .noRetryAfterFinal:
            let broken = sends.filter { send in
                ContractProperty.retriedAfterFinal(requests: send.value.count) { send.value[$0].final }
            }.map(\.key)
            let status = sends.first.flatMap { $0.value.first }.map { Int($0.record.status) } ?? 0
            return broken.isEmpty
                ? .pass("one request per final answer")
                : .fail("\(broken.count) sends were sent again after a final \(status) answer", sends: broken)
        case .retryAfterObeyed:
            return judgeRetryAfter(sends)
        case .retryAfterLimit:
            let broken = sends.filter { send in
                ContractProperty.retriedPastLimit(requests: send.value.count) {
                    (send.value[$0].retryAfter ?? 0) > ServerView.retryAfterLimit && send.value[$0].answered
                }
            }.map(\.key)
            return broken.isEmpty
                ? .pass("no retry after a Retry-After over 60 s")
                : .fail("\(broken.count) sends were retried after a Retry-After over 60 s", sends: broken)
        case .waitsInPolicy:
            return judgeWaits(sends, claim: claim)
        case .jitterUniform:
            return judgeJitter(sends, claim: claim)
        case .independentDraws:
            return judgeIndependence(sends)
        case .attemptTimeout:
            return judgeTimeout(sends, claim: claim)
        case .statusRead:
            return judgeStatusReads(view.statusReads, claim: claim)
        case .noLostSend, .failedMeansNoEffect, .payloadIntact, .attemptsReported, .errorIsLastAnswer, .cancelAborts,
            .survives, .runCompletes:
            // Judged from the client's own account (explore): no certify case names them.
            return CertifyVerdict(outcome: .notApplicable, detail: "not judged from the server's record alone")
        }
    }

    private static func judgeRetried(_ sends: [(key: Int, value: [ServerView.Attempt])], claim: ClientClaim)
        -> CertifyVerdict
    {
        var broken: [Int] = []
        for (id, attempts) in sends
        where ContractProperty.gaveUpEarly(
            requests: attempts.count, maxAttempts: claim.maxAttempts, lastEnds: attempts.last?.final)
        {
            broken.append(id)
        }
        return broken.isEmpty
            ? .pass("every retryable failure with attempts left was retried")
            : .fail(
                "\(broken.count) sends gave up after a retryable failure with attempts left (claimed \(claim.maxAttempts))",
                sends: broken)
    }

    private static func judgeStatusReads(_ reads: [ServerView.Attempt], claim: ClientClaim) -> CertifyVerdict {
        guard let last = reads.last else { return .fail("no status read reached the server") }
        if reads.contains(where: { $0.record.defects.contains(.queryToken) }) {
            return .fail("a status read carried its token in the URL (it belongs in X-Frontmail-Status-Token)")
        }
        // The fake's own 404 (no plan rule gave it): it knew no message for that id and token.
        if reads.contains(where: { $0.answered && $0.record.status == 404 && $0.record.rule < 0 }) {
            return .fail(
                "a status read the server could not match to its message: no token in X-Frontmail-Status-Token, or another message's"
            )
        }
        if let final = reads.dropLast().first(where: \.final) {
            return .fail("a status read was sent again after a final \(final.record.status) answer")
        }
        if !last.final, reads.count < claim.maxAttempts {
            return .fail(
                "a status read gave up after a retryable failure with attempts left (\(reads.count) of \(claim.maxAttempts))"
            )
        }
        guard last.answered, (200..<300).contains(Int(last.record.status)) else {
            // The plan answered every read: its token was not put to the test.
            return .pass("\(reads.count) status reads, ended as the plan's answers ask (the token is judged in 9.1)")
        }
        return .pass("\(reads.count) status reads; the server matched the last to its message by its token")
    }

    static func format(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3g", value) : "∞"
    }
}
