import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Synchronization
import Testing

@testable import LoadKit

/// `retry-after-spellings`: the header in any case, HTTP dates on later attempts, 0 and a
/// fraction, judged exactly on virtual time. Each broken client below passed every scenario before
/// this one.
@Suite("Retry-After as servers send it: spellings and dates on later attempts")
struct RetryAfterSpellingTests {
    static func scenario(_ name: String) throws -> Scenario {
        try Scenario.load(file: InputFuzzTests.scenarioFolder.appendingPathComponent("\(name).json").path)
    }

    static func run(
        _ name: String, transport: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)? = nil,
        clock: (@Sendable (any FrontmailScheduler) -> any FrontmailScheduler)? = nil
    ) async throws -> ScenarioResult {
        var runner = ScenarioRunner(outputFolder: nil, runID: "test", progress: false)
        runner.seams.transportWrapper = transport
        runner.seams.clockWrapper = clock
        return try await runner.run(scenario(name).quickened())
    }

    static func failed(_ result: ScenarioResult) -> Set<String> {
        Set(result.checks.filter { !$0.passed }.map(\.assertion.text))
    }

    @Test("the real SDK waits every spelling and every date exactly")
    func correctPasses() async throws {
        let result = try await Self.run("retry-after-spellings")
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["jitter.exact_retry_after_waits"] ?? 0) >= 500)
    }

    @Test("an SDK that reads only `Retry-After` jitters the lower-case header instead of waiting it")
    func caseSensitive() async throws {
        let result = try await Self.run("retry-after-spellings", transport: { CaseSensitiveRetryAfter(inner: $0) })
        let failures = Self.failed(result)
        #expect(failures.contains("jitter.exact_retry_after_gap_errors == 0"), "\(result.verdictLine)")
        #expect(failures.contains("jitter.retry_after_mismatches == 0"), "\(result.verdictLine)")
        // The scenarios before this one send `Retry-After` only, and pass it.
        let integer = try await Self.run(
            "rate-limit-retry-after-integer", transport: { CaseSensitiveRetryAfter(inner: $0) })
        #expect(integer.passed, "\(integer.verdictLine)")
    }

    @Test("an SDK that counts a date from the send's start waits too long on a later attempt's date")
    func sendStartNow() async throws {
        let result = try await Self.run("retry-after-spellings", clock: { SendStartWallClock(base: $0) })
        #expect(
            Self.failed(result).contains("jitter.exact_retry_after_gap_errors == 0"), "\(result.verdictLine)")
        #expect((result.metrics["jitter.exact_retry_after_gap_errors"] ?? 0) >= 100)
        // Dates on first attempts only: the first answer arrives as the send starts, so it passes.
        let firstOnly = try await Self.run("rate-limit-retry-after-http-date", clock: { SendStartWallClock(base: $0) })
        #expect(firstOnly.passed, "\(firstOnly.verdictLine)")
    }
}
