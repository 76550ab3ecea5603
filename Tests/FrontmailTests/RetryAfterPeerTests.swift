import Foundation
import Testing

@testable import Frontmail

/// The Retry-After values other projects assert in their own suites (Fixtures/, from RFC 9110, Go,
/// urllib3, hyperium/headers, httpdate, curl, go-retryablehttp and CPython), each read by the SDK at
/// the peer's clock. Where the SDK reads a value differently, the difference is a choice named in
/// docs/retry-after.md and listed here with the SDK's reading; every other value is read as the peer
/// reads it.
@Suite("Retry-After against the peers' test vectors")
struct RetryAfterPeerTests {
    struct PeerCase: Decodable, Sendable, CustomTestStringConvertible {
        struct Expected: Decodable, Sendable {
            var kind: String
            var epoch: Double?
            var seconds: Double?
        }
        enum CodingKeys: String, CodingKey {
            case id, header, compare, source
            case headerFields = "header_fields"
            case nowEpoch = "now_epoch"
            case peerExpected = "peer_expected"
        }
        var id: String
        var header: String
        var headerFields: [String]?
        var nowEpoch: Double
        var compare: String
        var peerExpected: Expected
        var source: String
        var testDescription: String { "\(id): \(header)" }
    }

    /// A reading: an instant (compare `date`), a wait in seconds (compare `value`), or none.
    enum Reading: Equatable, CustomStringConvertible {
        case instant(Double)
        case wait(Double)
        case none
        var description: String {
            switch self {
            case .instant(let epoch): return "date \(Int(epoch))"
            case .wait(let seconds): return "wait \(seconds) s"
            case .none: return "invalid"
            }
        }
    }

    /// The documented choices (docs/retry-after.md), each with the cases where it makes the SDK's
    /// reading differ from the peer's.
    static let choices: [String: (choice: String, ours: Reading)] = {
        var table: [String: (String, Reading)] = [
            // Fractions are kept, as the other Frontmail SDKs keep them (wire contract §4.4).
            "rfc9110-delay-seconds-fraction": ("fractions", .wait(1.5)),
            "urllib3-invalid-2": ("fractions", .wait(1)),
            // A wrong weekday is not checked (RFC 9110 gives no rule; the date's fields decide).
            "httpdate-bad-weekday": ("weekday", .instant(784_198_117)),
            // The wait is read as asked; a policy's maxRetryAfter then ends the send (wire contract
            // §4.4) where these peers clamp it; only past 2^31 s (RFC 9111 §1.2.2) is it clamped.
            "urllib3-max-21601-clamped": ("limit", .wait(21601)),
            "urllib3-max-1-clamped": ("limit", .wait(2)),
            "curl-test1596": ("limit", .wait(2_147_483_648)),
            // An impossible day (30 February, 31 April) is unreadable, not moved to the next month.
            "curl-lib517-66": ("impossible-day", .none),
            "curl-lib517-67": ("impossible-day", .none),
            "curl-lib517-68": ("impossible-day", .none),
            // Fields are RFC 9110's two digits (one for a day or an hour, as curl reads them).
            "curl-lib517-48": ("three-forms", .none),
            // Years before 1900 are unreadable (no server sends them; the backoff applies).
            "curl-lib517-62": ("years", .none),
            "curl-lib517-63": ("years", .none),
        ]
        // Only RFC 9110's three forms (GMT, or UTC) are read: zones, forms without a time or a
        // weekday, and lowercase `gmt` fall back to the backoff.
        for id in [
            "curl-lib517-12", "curl-lib517-14", "curl-lib517-15", "curl-lib517-16", "curl-lib517-17",
            "curl-lib517-21", "curl-lib517-22", "curl-lib517-23", "curl-lib517-24", "curl-lib517-40",
            "curl-lib517-42", "curl-lib517-52", "curl-lib517-70", "curl-lib517-71", "curl-lib517-78",
            "email-parsedate-y2k-0", "email-parsedate-y2k-1",
        ] {
            table[id] = ("three-forms", .none)
        }
        for suffix in ["00-lower", "01-lower", "02-lower", "03-lower", "04-lower", "05-lower"] {
            table["cookiejar-http2time-\(suffix)"] = ("three-forms", .none)
        }
        for number in 6...13 {
            for variant in ["", "-lower", "-upper"] {
                table[String(format: "cookiejar-http2time-%02d", number) + variant] = ("three-forms", .none)
            }
        }
        return table
    }()

    static let cases: [PeerCase] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/retry-after-peer-cases.json")
        struct File: Decodable { var cases: [PeerCase] }
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            return []
        }
        return file.cases
    }()

    static func peerReading(_ peer: PeerCase) -> Reading {
        let expected = peer.peerExpected
        switch (expected.kind, peer.compare) {
        case ("date", "date"): return .instant(expected.epoch ?? .nan)
        case ("date", _): return .wait(max(0, (expected.epoch ?? .nan) - peer.nowEpoch))
        case ("seconds", "date"): return .instant(peer.nowEpoch + (expected.seconds ?? .nan))
        case ("seconds", _): return .wait(expected.seconds ?? .nan)
        default: return .none
        }
    }

    static func sdkReading(_ peer: PeerCase) -> Reading {
        let now = Date(timeIntervalSince1970: peer.nowEpoch)
        if peer.compare == "date" {
            return RetryAfter.httpDate(peer.header, now: now).map { .instant($0.timeIntervalSince1970) } ?? .none
        }
        // A repeated field: the first one is the header (FrontmailHTTPHeaders' subscript).
        var headers = FrontmailHTTPHeaders()
        for value in peer.headerFields ?? [peer.header] { headers.add(name: "Retry-After", value: value) }
        return RetryAfter.parse(headers["retry-after"], now: now).map { .wait($0) } ?? .none
    }

    @Test("the fixture holds every vector (218) and each documented choice names a case in it")
    func fixture() {
        #expect(Self.cases.count == 218)
        let ids = Set(Self.cases.map(\.id))
        #expect(Set(Self.choices.keys).subtracting(ids).isEmpty)
    }

    @Test("each vector is read as the peer reads it, or as the named choice says", arguments: cases)
    func vector(_ peer: PeerCase) {
        let expected = Self.choices[peer.id]?.ours ?? Self.peerReading(peer)
        #expect(Self.sdkReading(peer) == expected, "\(peer.source)")
    }

    @Test("a documented choice really differs from the peer (a stale entry is removed)")
    func choicesDiffer() {
        for peer in Self.cases {
            guard let choice = Self.choices[peer.id] else { continue }
            #expect(choice.ours != Self.peerReading(peer), "\(peer.id) (\(choice.choice)) agrees with the peer")
        }
    }
}
