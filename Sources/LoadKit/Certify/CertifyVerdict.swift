import FakeFrontmail
import Foundation

/// The properties `certify` judges (`ContractProperty`, the one catalog), from the server's ledger
/// alone, so a client this project did not write can be graded.
extension ContractProperty {
    /// The properties a certify case may name.
    static let certified: [ContractProperty] = [
        .reached, .keyPresent, .keyV4, .sameKey, .distinctKeys, .sameBody, .oneEffect, .retried, .attemptBound,
        .noRetryAfterFinal, .retryAfterObeyed, .retryAfterLimit, .waitsInPolicy, .jitterUniform, .independentDraws,
        .attemptTimeout, .amplification, .statusRead,
    ]

    /// Whether the property is about retrying: NOT APPLICABLE to a client that claims one attempt.
    var needsRetries: Bool {
        [.retried, .retryAfterObeyed, .waitsInPolicy, .jitterUniform, .independentDraws, .sameKey, .sameBody]
            .contains(self)
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
