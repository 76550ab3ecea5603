import FakeFrontmail
import Foundation

/// What a `certify` case judges, from the server's ledger alone. The names are explore's
/// properties where the meaning is the same (docs/explore.md); certify judges them without the
/// client's account of itself, so a client this project did not write can be graded.
package enum CertifyProperty: String, Sendable, CaseIterable {
    /// Every planned send reached the server (also the precondition of every other property).
    case reached = "send-reached"
    case keyPresent = "key-present"
    case keyV4 = "key-uuid-v4"
    case sameKey = "same-key"
    case distinctKeys = "distinct-keys"
    case sameBody = "same-body"
    case oneEffect = "one-effect-per-send"
    /// A retryable failure with attempts left (by the client's claim) was retried.
    case retried = "no-early-give-up"
    case attemptBound = "attempt-bound"
    case noRetryAfterFinal = "no-retry-after-final-answer"
    case retryAfterObeyed = "retry-after-obeyed"
    /// A Retry-After over 60 s ends the send at once (contract §4.4).
    case retryAfterLimit = "retry-after-limit"
    case waitsInPolicy = "waits-in-policy"
    case jitterUniform = "jitter-uniform"
    /// Sends failing at the same moment do not retry at the same moment.
    case independentDraws = "independent-draws"
    /// An attempt the server does not finish is given up within the client's timeout.
    case attemptTimeout = "attempt-timeout"
    /// Requests per logical send in an outage (reported; judged against the claimed bound).
    case amplification
    /// A status read keeps its token out of the URL, is retried after a retryable answer and
    /// never after a final one.
    case statusRead = "status-read"

    /// What the property asks, in a line.
    package var summary: String {
        switch self {
        case .reached: return "every send reaches the server"
        case .keyPresent: return "every request carries an Idempotency-Key"
        case .keyV4: return "every key is a lowercase version-4 UUID (contract §4.6)"
        case .sameKey: return "every attempt of a send carries the same key"
        case .distinctKeys: return "no two sends share a key"
        case .sameBody: return "every attempt of a send carries the same body bytes"
        case .oneEffect: return "no send has two effects (two emails)"
        case .retried: return "a retryable failure with attempts left is retried"
        case .attemptBound: return "at most the claimed attempts per send"
        case .noRetryAfterFinal: return "no request after a 2xx or a 4xx other than 429"
        case .retryAfterObeyed: return "a retry comes no sooner than the Retry-After the server meant"
        case .retryAfterLimit: return "a Retry-After over 60 s ends the send at once, with no retry"
        case .waitsInPolicy: return "every backoff wait lies within the claimed policy"
        case .jitterUniform: return "backoff waits are distributed as the claimed jitter (KS)"
        case .independentDraws: return "sends failing together do not retry together"
        case .attemptTimeout: return "an attempt the server never finishes is given up within the claimed timeout"
        case .amplification: return "requests per send in an outage, within the claimed bound"
        case .statusRead:
            return "a status read carries its token in its header, is retried after a 5xx and never after a 404"
        }
    }

    /// Whether the property is about retrying: NOT APPLICABLE to a client that claims one attempt.
    var needsRetries: Bool {
        switch self {
        case .retried, .retryAfterObeyed, .waitsInPolicy, .jitterUniform, .independentDraws, .sameKey, .sameBody:
            return true
        case .reached, .keyPresent, .keyV4, .distinctKeys, .oneEffect, .attemptBound, .noRetryAfterFinal,
            .retryAfterLimit, .attemptTimeout, .amplification, .statusRead:
            return false
        }
    }
}

/// A case's verdict: the outcome, why in a line, and the sends and requests that broke it.
package struct CertifyVerdict: Sendable {
    package enum Outcome: String, Sendable {
        case pass = "PASS"
        case fail = "FAIL"
        case notApplicable = "NOT APPLICABLE"
        case informational = "INFORMATIONAL"
    }

    package var outcome: Outcome
    package var detail: String
    /// The sends that broke the property (empty on a pass).
    package var sends: [Int] = []
    /// A figure the case reports (requests per send, KS D), NaN when none.
    package var figure: Double = .nan
    /// What an INFORMATIONAL case would have been, were it required (PASS or FAIL).
    package var recommendation: Outcome?

    static func pass(_ detail: String, figure: Double = .nan) -> CertifyVerdict {
        CertifyVerdict(outcome: .pass, detail: detail, figure: figure)
    }

    static func fail(_ detail: String, sends: [Int] = [], figure: Double = .nan) -> CertifyVerdict {
        CertifyVerdict(outcome: .fail, detail: detail, sends: sends, figure: figure)
    }
}
