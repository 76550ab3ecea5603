import FakeFrontmail
import Foundation

/// One numbered case of `certify` (docs/certify.md): a fault plan the fake serves over sockets,
/// the logical sends the client is asked to make, and the one property its verdict judges from the
/// server's record alone.
package struct CertifyCase: Sendable {
    package enum Group: String, Sendable, CaseIterable {
        case idempotency
        case retryAfter = "retry-after"
        case backoff
        case nonRetryable = "non-retryable"
        case retryable
        case timeouts
        case resets
        case outage
        case status
        /// Answers outside the contract: a client must survive them (last, so earlier ids stay).
        case hostile

        /// The number before a case's dot.
        var number: Int { Self.allCases.firstIndex(of: self)! + 1 }
    }

    /// Whether a verdict counts: a required case's FAIL fails the client, an informational one's
    /// is reported (a recommendation of the contract, not a rule of it).
    package enum Weight: String, Sendable {
        case required
        case informational
    }

    /// `1.3`: group, then the case's place in it, for display (a number moves when a case is
    /// added before it; files and folders use `name`).
    package var id: String
    /// `retry-after.fraction`: the case's stable name, its group and a word of its own.
    package var name: String
    package var group: Group
    package var title: String
    package var property: ContractProperty
    package var plan: FaultPlan
    /// Logical sends, and how many the client runs at once (1: one after another).
    package var sends: Int
    package var concurrency: Int
    package var weight: Weight
    /// How long the client may take before it is stopped (and the case fails).
    package var deadline: Double
    /// Whether the client is asked to read each sent message's status (`FRONTMAIL_STATUS_READS=1`).
    package var readsStatus = false

    /// The body of logical send `index`, as the API takes it (wire contract §2.1): the send's number
    /// in `template_params.bench_send_id` is what ties its requests together on the server.
    package static func body(send index: Int, publicKey: String) -> String {
        "{\"template_id\":\"tpl_bench\",\"user_id\":\"\(publicKey)\","
            + "\"template_params\":{\"bench_send_id\":\(index),\"message\":\"certify\"}}"
    }

    /// Whether the verdict depends on when requests arrive (a wait, a timeout, a time window): on a
    /// host too busy to send on time a correct client can fail it and a broken one pass it. These
    /// are judged by `certify` run on its own (CI), and their judge on hand-built records in
    /// `swift test`; the other cases hold on any host.
    package var dependsOnHostSpeed: Bool {
        if plan.rules.contains(where: { $0.match.from != nil || $0.match.to != nil }) { return true }
        switch property {
        case .retryAfterObeyed, .waitsInPolicy, .jitterUniform, .independentDraws, .attemptTimeout, .amplification:
            return true
        case .reached, .keyPresent, .keyV4, .sameKey, .distinctKeys, .sameBody, .oneEffect, .retried, .attemptBound,
            .noRetryAfterFinal, .retryAfterLimit, .statusRead, .noLostSend, .failedMeansNoEffect, .payloadIntact,
            .attemptsReported, .errorIsLastAnswer, .cancelAborts, .survives, .runCompletes:
            return false
        }
    }

    /// Whether `pattern` (`retry-after.fraction`, `backoff.*`, `retry-after`, `2.*`, `1.1`, `*`)
    /// names this case.
    package func matches(_ pattern: String) -> Bool {
        if pattern == group.rawValue { return true }
        return Glob.matches(pattern, name) || Glob.matches(pattern, id)
    }

    /// The case `text` names: its name, or its number (a clients file's numbers are read for one
    /// release, `CertifyManifest.numberedFailures`).
    package static func named(_ text: String) -> CertifyCase? {
        all.first { $0.name == text } ?? all.first { $0.id == text }
    }

    /// Whether `text` is a case number rather than a name (`1.3`): what files wrote before cases
    /// had names, read for one release and said where it is.
    package static func isNumber(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}

/// `*` (any run of characters) and `?` (one character), the rest literal.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern)
        let text = Array(text)
        var p = 0
        var t = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

extension CertifyCase {
    /// Why the case does not apply to a client with `claim` (NOT APPLICABLE), or nil when it does.
    package func notApplicable(to claim: ClientClaim) -> String? {
        if property.needsRetries && !claim.retries { return "the client claims one attempt per send" }
        if property == .statusRead && !claim.statusReads { return "the client does not claim to read statuses" }
        return nil
    }
}

extension CertifyCase {
    /// The case's deadline for a client with `claim`: a case whose fault holds an attempt (group 6)
    /// waits at least for the claimed timeout (the contract's 15 s when it claims none) to end it, the first backoff and the retry, each with
    /// the judge's lateness allowance, and 5 s more; every other case keeps its own.
    package func deadline(for claim: ClientClaim) -> Double {
        guard group == .timeouts,
            let timeout = (claim.timeout ?? ClientClaim.contractDefaults.timeout)?.seconds
        else { return deadline }
        let backoff = claim.draw(retry: 0).map { $0.low + $0.width } ?? claim.cap(retry: 0)
        let needed =
            timeout + CertifyJudge.lateTolerance(cap: timeout) + backoff + CertifyJudge.lateTolerance(cap: backoff) + 5
        return max(deadline, needed)
    }
}
