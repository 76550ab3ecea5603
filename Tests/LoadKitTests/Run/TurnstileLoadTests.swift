import Foundation
import Frontmail
import Synchronization
import Testing

@testable import LoadKit

/// Rewrites the Turnstile members of send bodies as a wrong SDK would send them.
struct TurnstileRewriting: FrontmailTransport {
    enum Kind: Sendable, CustomStringConvertible {
        /// The token only on a send's first request: retries go without it.
        case tokenOnFirstAttemptOnly
        /// The key capitalised (`Org`), which the server does not know.
        case keyCapitalised

        var description: String {
            switch self {
            case .tokenOnFirstAttemptOnly: return "the token on the first attempt only"
            case .keyCapitalised: return "the key capitalised"
            }
        }
    }

    /// Idempotency keys already sent once.
    final class SeenKeys: Sendable {
        let keys = Mutex<Set<String>>([])
    }

    let inner: any FrontmailTransport
    let kind: Kind
    let seen = SeenKeys()

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let body = request.body, let key = request.headers["Idempotency-Key"],
            var object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return try await inner.send(request) }
        switch kind {
        case .tokenOnFirstAttemptOnly:
            let retry = seen.keys.withLock { !$0.insert(key).inserted }
            if retry { object["turnstile_token"] = nil }
        case .keyCapitalised:
            if let name = object["turnstile_key"] as? String { object["turnstile_key"] = name.capitalized }
        }
        var rewritten = request
        rewritten.body = try JSONSerialization.data(withJSONObject: object)
        return try await inner.send(rewritten)
    }
}

/// `turnstile-protected`: the Turnstile options of `SendOptions` on every attempt, as the server
/// reads them.
@Suite("Turnstile options under faults: on every attempt, as the API spells them")
struct TurnstileLoadTests {
    static func run(_ broken: TurnstileRewriting.Kind?) async throws -> ScenarioResult {
        try await runStandardQuick("turnstile-protected") { runner in
            if let broken { runner.seams.transportWrapper = { TurnstileRewriting(inner: $0, kind: broken) } }
        }
    }

    @Test("the real SDK carries the token and key on every attempt; rejected tokens end the send")
    func correctPasses() async throws {
        let result = try await Self.run(nil)
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["send.errors.captcha_failed"] ?? 0) >= 90)
    }

    @Test(
        "an SDK that sends the options wrongly fails",
        arguments: [
            (
                TurnstileRewriting.Kind.tokenOnFirstAttemptOnly,
                ["attempts.errors.captcha_required == 0", "send.success_rate >= 0.88"]
            ),
            (TurnstileRewriting.Kind.keyCapitalised, ["send.errors.invalid_body == 0", "send.success_rate >= 0.88"]),
        ])
    func brokenFails(kind: TurnstileRewriting.Kind, caughtBy: [String]) async throws {
        let result = try await Self.run(kind)
        #expect(failedAssertions(result).isSuperset(of: caughtBy), "\(kind): \(result.verdictLine)")
    }

    @Test("client.turnstile is checked where it is read")
    func badSettings() throws {
        func scenario(_ turnstile: String) throws -> Scenario {
            try makeScenario(
                #"{"name": "x", "load": {"type": "closed", "concurrency": 1, "sends": 1}, "client": {"turnstile": "#
                    + turnstile + "}}")
        }
        for (fragment, expected) in [
            (#"{"key": "ORG"}"#, "client.turnstile.key: 'ORG' is not a Turnstile key (org, frontmail)"),
            (#"{"badEvery": -1}"#, "client.turnstile.badEvery: must be 0-1000000"),
            (#"{"badEvery": 1.5}"#, "client.turnstile.badEvery"),
            (#"{"token": "x"}"#, "client.turnstile.token: unknown field"),
        ] {
            #expect {
                try scenario(fragment)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
        let good = try scenario(#"{"key": "frontmail", "badEvery": 4}"#)
        #expect(good.client.turnstile?.key == .frontmail)
        #expect(
            (0..<8).map { good.client.turnstile?.token($0) == "bad-token" } == [
                false, false, false, true, false, false, false, true,
            ])
    }
}
