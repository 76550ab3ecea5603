import FakeFrontmail
import Foundation

/// The contract's properties: one name and one meaning for every room that judges them. `explore`
/// judges a property on the simulated clock (exactly) or over sockets, from the server's ledger and
/// the driver's history; `certify` judges it from the server's ledger alone, for a client this
/// project did not write. Where both judge the same evidence they call the same function (below);
/// a certify case and a broken client each name the property they exercise by its name here.
package enum ContractProperty: String, Sendable, CaseIterable {
    /// Every planned send reached the server (also the precondition of every other property).
    case reached = "send-reached"
    case keyPresent = "key-present"
    case keyV4 = "key-uuid-v4"
    case sameKey = "same-key"
    case distinctKeys = "distinct-keys"
    case sameBody = "same-body"
    case oneEffect = "one-effect-per-send"
    case noLostSend = "no-lost-send"
    case failedMeansNoEffect = "failed-means-no-effect"
    case payloadIntact = "payload-intact"
    case attemptsReported = "attempts-reported"
    case attemptBound = "attempt-bound"
    case noRetryAfterFinal = "no-retry-after-final-answer"
    /// A retryable failure with attempts left was retried.
    case retried = "no-early-give-up"
    case retryAfterObeyed = "retry-after-obeyed"
    /// A Retry-After over the limit (60 s by contract §4.4) ends the send at once.
    case retryAfterLimit = "retry-after-limit"
    case waitsInPolicy = "waits-in-policy"
    case jitterUniform = "jitter-uniform"
    /// Sends failing at the same moment do not retry at the same moment.
    case independentDraws = "independent-draws"
    /// An attempt the server does not finish is given up at the client's timeout.
    case attemptTimeout = "attempt-timeout"
    /// Requests per logical send in an outage (reported; judged against the claimed bound).
    case amplification
    case errorIsLastAnswer = "error-is-last-answer"
    /// A status read keeps its token out of the URL, is retried after a retryable answer and
    /// never after a final one.
    case statusRead = "status-read"
    case cancelAborts = "cancel-aborts"
    case survives
    /// A run's every send ends: no crash, no hang, no deadlock.
    case runCompletes = "run-completes"

    /// What the property asks, in a line: the same words in every room and document.
    package var summary: String {
        switch self {
        case .reached: return "every send reaches the server"
        case .keyPresent: return "every request carries an Idempotency-Key"
        case .keyV4: return "every key is a lowercase version-4 UUID (contract §4.6)"
        case .sameKey: return "every attempt of a send carries the same key"
        case .distinctKeys: return "no two sends share a key"
        case .sameBody: return "every attempt of a send carries the same body bytes"
        case .oneEffect: return "no send has two effects (two emails), and no effect is without a send"
        case .noLostSend: return "a send the client calls sent has the effect with its message id"
        case .failedMeansNoEffect: return "a send that failed for certain (a 4xx) has no effect"
        case .payloadIntact: return "the body the server decodes is the params the caller meant"
        case .attemptsReported: return "the client reports every request it makes and none it did not"
        case .attemptBound:
            return "at most the policy's attempts per send (maxRetries + 1), fewer only where a budget refuses"
        case .noRetryAfterFinal: return "no request after a 2xx or a 4xx other than 429 that the client received whole"
        case .retried:
            return
                "a retryable failure with attempts left is retried, unless a budget or a Retry-After over the limit says no"
        case .retryAfterObeyed:
            return
                "a retry comes no sooner than the Retry-After the server meant (on the simulated clock: exactly then)"
        case .retryAfterLimit:
            return "a Retry-After over the limit (60 s by default) ends the send at once, with no retry"
        case .waitsInPolicy: return "every backoff wait lies within the policy's cap for its retry"
        case .jitterUniform: return "backoff waits are distributed as the policy's jitter (KS)"
        case .independentDraws: return "sends failing together do not retry together"
        case .attemptTimeout:
            return "an attempt the server never finishes is given up at the client's timeout (simulated: exactly then)"
        case .amplification: return "requests per send in an outage, within the claimed bound"
        case .errorIsLastAnswer: return "a failed send throws the code and status the server answered last"
        case .statusRead:
            return "a status read keeps its token out of the URL, is retried after a 5xx and never after a final answer"
        case .cancelAborts: return "a cancelled read throws aborted at the cancel's instant and sends nothing after"
        case .survives:
            return
                "an answer outside the contract (a 1xx, 3xx or 600-999 status, a hostile body or Retry-After) ends as the contract says"
        case .runCompletes: return "every send of a run ends: no crash, no hang, no deadlock"
        }
    }

    // The judging functions both rooms share: each takes one send's requests as the server saw
    // them, in arrival order.

    /// The send's attempts did not all carry the same body bytes.
    static func changesBody(_ attempts: [LedgerRecord]) -> Bool {
        Set(attempts.map(\.fingerprint)).count > 1
    }

    /// The send's requests did not all carry one and the same key (`same-key`): a request carried
    /// none (nil), or two carried different ones. `keys` are the send's requests' keys.
    static func breaksSameKey<Key: Hashable>(_ keys: [Key?]) -> Bool {
        missesKey(keys) || Set(keys).count > 1
    }

    /// A request of the send carried no key (`key-present`).
    static func missesKey<Key>(_ keys: [Key?]) -> Bool {
        keys.contains { $0 == nil }
    }

    /// Which sends share a key (`distinct-keys`): the first send to carry each key, and the keys
    /// that another send carried too. `sends` holds each send's requests' keys; a request without
    /// a key shares nothing (`key-present` judges it).
    static func keyOwners<Key: Hashable>(_ sends: [(send: Int, keys: [Key?])]) -> (owners: [Key: Int], shared: Set<Key>)
    {
        var owners: [Key: Int] = [:]
        var shared: Set<Key> = []
        for (send, keys) in sends {
            for key in keys {
                guard let key else { continue }
                if let owner = owners[key], owner != send { shared.insert(key) } else { owners[key] = send }
            }
        }
        return (owners, shared)
    }

    /// The send made more requests than its policy allows (`attempt-bound`): `maxAttempts` is
    /// maxRetries + 1, plus any requests the room knows a transport resent on its own.
    static func overAttempts(requests: Int, maxAttempts: Int) -> Bool {
        requests > maxAttempts
    }

    /// A request of the send came after an answer that ended it (`no-retry-after-final-answer`).
    /// `ends(i)` says whether the answer to request `i` ended the send, as the room reads answers
    /// (nil: it cannot tell, and the request is not held against the client).
    static func retriedAfterFinal(requests: Int, ends: (Int) -> Bool?) -> Bool {
        (0..<max(0, requests - 1)).contains { ends($0) == true }
    }

    /// The send stopped after a failure the contract retries, with attempts left
    /// (`no-early-give-up`): `lastEnds` is whether its last answer ended it (nil: cannot tell).
    static func gaveUpEarly(requests: Int, maxAttempts: Int, lastEnds: Bool?) -> Bool {
        requests > 0 && requests < maxAttempts && lastEnds == false
    }

    /// A request of the send came after an answer whose Retry-After was over the limit
    /// (`retry-after-limit`): `overLimit(i)` says whether request `i`'s answer, received whole, said so.
    static func retriedPastLimit(requests: Int, overLimit: (Int) -> Bool) -> Bool {
        (0..<max(0, requests - 1)).contains(where: overLimit)
    }

    /// A time outside the window the contract gives it (`retry-after-obeyed`, `waits-in-policy`,
    /// `attempt-timeout`): before `low - early` or after `high + late`, where `early` and `late`
    /// are what the room's clock allows (a microsecond on the simulated clock, real time's
    /// tolerances over sockets and in certify). A time never measured (NaN) is outside.
    static func outsideWindow(_ time: Double, low: Double, high: Double, early: Double, late: Double) -> Bool {
        !(time >= low - early && time <= high + late)
    }

    /// The send was committed more than once: two emails.
    static func committedTwice(_ attempts: [LedgerRecord]) -> Bool {
        attempts.lazy.filter(\.effect).count > 1
    }

    /// A lowercase version-4 UUID in its 36-character form (RFC 9562 §5.4, contract §4.6): 8-4-4-4-12
    /// hex digits, version nibble 4, variant 8, 9, a or b.
    static func isVersion4(_ key: String?) -> Bool {
        guard let key else { return false }
        let bytes = Array(key.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23: if byte != UInt8(ascii: "-") { return false }
            case 14: if byte != UInt8(ascii: "4") { return false }
            case 19: if !"89ab".utf8.contains(byte) { return false }
            default: if !"0123456789abcdef".utf8.contains(byte) { return false }
            }
        }
        return true
    }
}
