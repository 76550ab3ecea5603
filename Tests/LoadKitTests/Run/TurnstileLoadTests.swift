import Foundation
import Frontmail
import FrontmailMutants
import Synchronization
import Testing

@testable import LoadKit

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
