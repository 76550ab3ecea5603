import FakeFrontmail
import Foundation

/// Draws a whole scenario from a seed, swarm style: each case turns a random subset of the fault
/// kinds on (Groce et al., "Swarm testing", ISSTA 2012), so that one kind does not crowd out the
/// interactions of the others; then a client from the whole valid range, a payload, a load of
/// 1-200 sends, maybe status reads with cancels, and up to six rules from the kinds it kept.
struct CaseGenerator {
    /// The rule families a case may turn on (a capacity model is the one more).
    enum Kind: String, CaseIterable, Sendable {
        case unavailable, rateLimited, serverError, clientError, malformed, errorBody
        case delay, slowBody, hang, reset, close, truncate, commitThenDrop, commitThenDelay, refuse
    }

    private var random: SeededRandom

    init(seed: UInt64, mixing: UInt64 = 0x6578_706C_6F72_65) { random = SeededRandom(seed: seed, mixing: mixing) }

    /// The case of `seed`; over sockets, bounded for the real clock (`ExploreCase.onRealClock`).
    /// Answers outside the contract are drawn from a stream of their own, so a case without them is
    /// the case the same seed drew before they existed.
    static func draw(seed: UInt64, overSockets: Bool = false) -> ExploreCase {
        var generator = CaseGenerator(seed: seed)
        var drawn = generator.draw(seed: seed)
        var hostile = CaseGenerator(seed: seed, mixing: 0x686F_7374_696C_65)
        if hostile.chance(Self.hostileShare) {
            for _ in 0..<hostile.int(1...2) { drawn.rules.append(hostile.hostileRule(overSockets: overSockets)) }
        }
        return overSockets ? drawn.onRealClock() : drawn
    }

    /// Percent of cases with answers outside the contract (the `survives` property).
    static let hostileShare = 20

    mutating func draw(seed: UInt64) -> ExploreCase {
        var drawn = ExploreCase(seed: seed)
        let kinds = Kind.allCases.filter { _ in chance(50) }
        let capacity = chance(50)
        drawn.client = client()
        drawn.payload = pick([
            "contactForm", "contactForm", "fidelity", "fidelity", "order", "identical",
            "encodableWithDates", "attachment",
        ])
        let sends = sendCount()
        if chance(15) { drawn.client.keyPool = int(1...max(1, sends)) }
        drawn.load =
            chance(70)
            ? .closed(concurrency: int(1...min(64, sends)), sends: sends) : .open(rate: int(1...500), sends: sends)
        if chance(30) {
            drawn.status = ExploreCase.Status(
                reads: int(1...3), unknown: chance(50) ? int(1...50) : 0, cancel: chance(50) ? int(1...50) : 0,
                cancelWithin: int(1_000...2_000_000))
        }
        if !kinds.isEmpty {
            for _ in 0..<int(0...6) {
                drawn.rules.append(rule(pick(kinds), client: drawn.client, status: drawn.status != nil))
            }
        }
        if capacity {
            drawn.capacity = ExploreCase.Capacity(
                workers: int(1...8), serviceTime: int(100...50_000), shed: chance(50))
        }
        return drawn
    }

    // MARK: Parts

    private mutating func client() -> ExploreCase.Client {
        var client = ExploreCase.Client()
        client.maxRetries = chance(70) ? int(0...4) : chance(67) ? int(5...10) : int(11...100)
        client.baseDelay = chance(10) ? 0 : int(1_000...2_000_000)
        client.maxDelay = chance(15) ? int(0...client.baseDelay) : int(client.baseDelay...30_000_000)
        client.maxRetryAfter = chance(10) ? 0 : int(500...60_000) * 1000
        client.timeout = int(10_000...20_000_000)
        if chance(30) { client.budget = chance(50) ? "quota" : "\(int(1...100))%" }
        return client
    }

    private mutating func sendCount() -> Int {
        let size = int(0...99)
        return size < 50 ? int(1...10) : size < 85 ? int(11...60) : int(61...200)
    }

    private mutating func rule(_ kind: Kind, client: ExploreCase.Client, status: Bool) -> ExploreCase.Rule {
        var rule = ExploreCase.Rule(fault: fault(kind, client: client))
        let endpoint = int(0...9)
        rule.endpoint = endpoint < 6 ? "send" : endpoint < 8 && status ? "status" : nil
        if chance(30) { rule.attempt = int(1...3) }
        if chance(60) { rule.probability = int(5...90) }
        if chance(15) { rule.everyNth = int(2...5) }
        if chance(15) { rule.limit = int(1...20) }
        return rule
    }

    private mutating func fault(_ kind: Kind, client: ExploreCase.Client) -> ExploreCase.Fault {
        switch kind {
        case .unavailable: return .respond(status: 503, retryAfter: maybeRetryAfter(client), body: nil)
        case .rateLimited: return .respond(status: 429, retryAfter: maybeRetryAfter(client), body: nil)
        case .serverError:
            return .respond(status: pick([500, 502, 504]), retryAfter: maybeRetryAfter(client), body: nil)
        case .clientError: return .respond(status: pick([400, 404, 408, 409, 422, 451]), retryAfter: nil, body: nil)
        case .malformed:
            return .respond(
                status: pick([200, 202]), retryAfter: nil,
                body: pick([
                    "html", "empty", "emptyObject",
                    "invalidJSON", "noMessageID",
                ]))
        case .errorBody:
            return .respond(
                status: pick([429, 500, 503, 400]), retryAfter: nil,
                body: pick([
                    "html", "empty",
                    "invalidJSON",
                ]))
        case .delay: return .delay(int(100...3_000_000))
        case .slowBody: return .slowBody(bytesPerSecond: int(100...1_000_000))
        case .hang: return .hang
        case .reset: return .reset
        case .close: return .close
        case .truncate: return .truncate
        case .commitThenDrop: return .commitThenDrop
        case .commitThenDelay: return .commitThenDelay(int(100...3_000_000))
        case .refuse:
            let from = int(0...2_000_000)
            return .refuse(from: from, to: from + int(10_000...2_000_000))
        }
    }

    /// Every spelling the contract names: whole seconds, fractions, 0, negative, the limit itself,
    /// over the limit, an HTTP date (ahead, past, over the limit), and text that is neither.
    private mutating func maybeRetryAfter(_ client: ExploreCase.Client) -> ExploreCase.RetryAfterSpelling? {
        guard chance(60) else { return nil }
        let limit = client.maxRetryAfter / 1000
        switch int(0...9) {
        case 0: return .seconds(milliseconds: int(1...5) * 1000)
        case 1: return .seconds(milliseconds: int(1...3_500))
        case 2: return .seconds(milliseconds: 0)
        case 3: return .seconds(milliseconds: -int(1...5) * 1000)
        case 4: return .seconds(milliseconds: limit)
        case 5: return .seconds(milliseconds: limit + int(1...30_000))
        case 6: return .httpDateIn(seconds: int(1...5))
        case 7: return .httpDateIn(seconds: -int(1...30))
        case 8: return .httpDateIn(seconds: limit / 1000 + int(2...60))
        default: return .text(chance(50) ? pick(["soon", "1s", "Fri, 31 Feb 2026"]) : hostileRetryAfter())
        }
    }

    /// An answer no API should give (docs/fault-plans.md): a status outside the API's table, or a
    /// 2xx, 429 or 5xx with a hostile body, a hostile Retry-After, or both. Over sockets no 1xx: HTTP
    /// reads it as an interim answer, so what the client sees is the transport's, not the plan's.
    private mutating func hostileRule(overSockets: Bool) -> ExploreCase.Rule {
        let outside = overSockets ? [300, 302, 399, 600, 799, 999] : [100, 103, 199, 300, 302, 399, 600, 799, 999]
        let status = chance(40) ? pick(outside) : pick([200, 202, 429, 500, 503])
        let body = (200..<300).contains(status) || chance(50) ? pick(BodySpec.hostileNames) : nil
        let retryAfter = chance(50) ? ExploreCase.RetryAfterSpelling.text(hostileRetryAfter()) : nil
        var rule = ExploreCase.Rule(fault: .respond(status: status, retryAfter: retryAfter, body: body))
        rule.endpoint = "send"
        if chance(50) { rule.probability = int(20...80) }
        if chance(30) { rule.attempt = int(1...3) }
        return rule
    }

    /// A Retry-After no server should send but any broken one may (docs/retry-after.md): signs,
    /// exponents, NaN, huge numbers, no-break spaces and non-ASCII digits, kilobytes of digits, and
    /// dates with huge years or fields out of range. The SDK must survive each and read it as the
    /// fake's oracle does: most mean nothing (the backoff), a huge number means giving up.
    private mutating func hostileRetryAfter() -> String {
        switch int(0...9) {
        case 0: return pick(["-1", "+3", "-0", "--2", "- 1"])
        case 1: return pick(["nan", "NaN", "inf", "Infinity", "1e3", "1E-2", "0x10", "1_000"])
        case 2: return String(repeating: "9", count: int(11...40))
        case 3: return String(repeating: "1", count: int(400...4_000))
        case 4: return pick(["\u{00A0}2", "2\u{00A0}", "\u{0661}\u{0662}", "\u{FF15}", "\u{2007}1"])
        case 5:
            let year = String(repeating: "9", count: int(5...13))
            return pick([
                "Sun, 06 Nov \(year) 08:49:37 GMT", "Sunday, 06-Nov-\(year) 08:49:37 GMT",
                "Sun Nov  6 08:49:37 \(year)",
            ])
        case 6:
            return pick([
                "Sun, 31 Apr 2024 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Nov 1994 08:61:00 GMT",
                "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1899 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            ])
        case 7: return String(repeating: "Sun, ", count: int(100...1_500))
        case 8: return pick(["2, 3", "1.5.2", "1.", ".5", "1 2", "\t"])
        default: return String(repeating: " ", count: int(1...64)) + String(int(0...3))
        }
    }

    // MARK: Draws

    private mutating func chance(_ percent: Int) -> Bool { Int(random.next() % 100) < percent }

    private mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...choices.count - 1)] }
}
