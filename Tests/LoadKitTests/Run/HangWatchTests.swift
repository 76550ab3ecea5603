import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// A run on the real clock that does not end is a FAIL naming what it waits for, never a wait for
/// CI's timeout.
@Suite("hang watch: a run that does not end is a verdict")
struct HangWatchTests {
    /// A transport that never answers and ignores cancellation: the SDK's attempt waits for it
    /// forever (the transport contract says it must end promptly when cancelled).
    struct DeafTransport: FrontmailTransport {
        func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            throw URLError(.unknown)
        }
    }

    @Test("work that ends gives its value; its own error is thrown as it is")
    func ends() async throws {
        #expect(try await HangWatch.bounded(limit: 60) { 42 } == 42)
        await #expect(throws: URLError.self) { try await HangWatch.bounded(limit: 60) { throw URLError(.badURL) } }
    }

    @Test("work that ends only when cancelled is a hang that ended once cancelled")
    func endsWhenCancelled() async throws {
        do {
            _ = try await HangWatch.bounded(limit: 0.2, grace: 30) {
                try await Task.sleep(nanoseconds: 3_600_000_000_000)
            }
            Issue.record("no hang reported")
        } catch let hang as HangWatch.Hang {
            #expect(hang.endedWhenCancelled)
            #expect(hang.description.contains("it ended once cancelled"))
        }
    }

    @Test("work that ignores its cancel is left behind, and the hang names the sends still open")
    func leftBehind() async throws {
        do {
            _ = try await HangWatch.bounded(limit: 0.2, grace: 0.2) {
                await OpenSends.counting { await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in } }
            }
            Issue.record("no hang reported")
        } catch let hang as HangWatch.Hang {
            #expect(!hang.endedWhenCancelled)
            #expect(hang.openSends >= 1)
            #expect(hang.description.contains("left behind"))
        }
    }

    @Test("a real-clock scenario whose transport never ends is a FAIL naming the open sends; the SDK's own ends")
    func scenario() async throws {
        let scenario = try makeScenario(
            #"{"name": "deaf", "transport": "inProcess", "clock": "real", "timeScale": 0.01, "wallBudget": 1, "#
                + #""load": {"type": "closed", "concurrency": 3, "sends": 3}}"#)
        var runner = ScenarioRunner(outputFolder: nil, runID: "hang", progress: false)
        let passed = try await runner.run(scenario)
        #expect(passed.passed, "\(passed.verdictLine)")
        // The deaf transport never answers: a short limit decides nothing a slow host could change.
        runner.hangLimit = 2
        runner.seams.transportWrapper = { _ in DeafTransport() }
        do {
            _ = try await runner.run(scenario)
            Issue.record("the deaf transport's run ended")
        } catch let hang as HangWatch.Hang {
            #expect(hang.openSends >= 3, "\(hang)")
            #expect(!hang.endedWhenCancelled)
        }
        // As a run's scenario (the child of an isolated run prints it for its parent): a FAIL
        // verdict naming the hang, the last scenario that process runs.
        let entries = try await InProcessRun(
            scenarios: [scenario, scenario], runner: runner, quick: false, child: true
        ).run()
        #expect(entries.count == 1)
        #expect(entries.first?.verdictLine.hasPrefix("FAIL deaf: hang: the run did not end within 2 s") == true)
        #expect(entries.first?.passed == false)
    }
}
