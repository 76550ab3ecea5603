import FakeFrontmail
import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// Answers outside the contract (`survives`): drawn in a share of cases from a stream of their
/// own, judged from the ledger, failed by a client that takes 600-999 for server errors and passed
/// by the SDK as it is.
@Suite("explore: hostile answers and the survives property")
struct HostileAnswerTests {
    static func measure(_ drawn: ExploreCase, broken: String? = nil) async -> Explorer.Outcome {
        var options = Explorer.Options()
        options.broken = broken.flatMap(BrokenClient.named)
        return await Explorer(options: options).measure(drawn, index: 0, schedule: .fifo)
    }

    static func hostileCase(status: Int, body: String? = nil, retryAfter: String? = nil) -> ExploreCase {
        var drawn = ExploreCase(seed: 7)
        drawn.client.maxRetries = 2
        drawn.client.baseDelay = 10_000
        drawn.load = .closed(concurrency: 2, sends: 4)
        drawn.rules = [
            ExploreCase.Rule(
                endpoint: "send", attempt: 1,
                fault: .respond(status: status, retryAfter: retryAfter.map { .text($0) }, body: body))
        ]
        return drawn
    }

    @Test(
        "the SDK survives each kind of hostile answer, and every such send is counted",
        arguments: [
            (600, nil, nil), (999, "megabytes", nil), (302, nil, nil), (103, nil, nil), (200, "deepNesting", nil),
            (202, "hugeNumber", nil), (200, "invalidUTF8", nil), (503, "deepNesting", "99999999999999999999"),
            (429, nil, "Sun, 06 Nov 2999999999999 08:49:37 GMT"), (500, "megabytes", "nan"),
        ] as [(Int, String?, String?)])
    func sdkSurvives(status: Int, body: String?, retryAfter: String?) async {
        let outcome = await Self.measure(Self.hostileCase(status: status, body: body, retryAfter: retryAfter))
        #expect(outcome.error == nil, "\(outcome.error ?? "")")
        #expect(outcome.broken.isEmpty, "\(outcome.broken)")
        #expect(outcome.judged["survives"]?.checked == 4)
        // A hostile 2xx is invalid_response and not retried; a hostile 5xx or 429 is retried
        // (a Retry-After of 2^31 s or more is over any limit: the send ends at once).
        if (200..<300).contains(status) {
            #expect(outcome.metrics[.sendErrors("invalid_response")] == 4)
            #expect(outcome.metrics[.loadServerRequests] == 4)
        } else if retryAfter?.first == "9" {
            // Not the API's error body: the code the contract gives a 5xx.
            #expect(outcome.metrics[.sendErrors("internal_error")] == 4)
            #expect(outcome.metrics[.loadServerRequests] == 4)
        } else if status == 429 || (500...599).contains(status) {
            #expect(outcome.metrics[.sendOk] == 4)
            #expect(outcome.metrics[.loadServerRequests] == 8)
        } else {
            #expect(outcome.metrics[.sendFailed] == 4)
            #expect(outcome.metrics[.loadServerRequests] == 4)
        }
    }

    @Test("a client that takes 600-999 for a 503 fails survives (and no hostile send fails it in a plain plan)")
    func brokenFails() async {
        let broken = await Self.measure(Self.hostileCase(status: 799), broken: "any-5xx-class")
        #expect(broken.judged["survives"]?.violations == 4, "\(broken.judged)")
        #expect(broken.broken.contains("survives"))
        let plain = await Self.measure(Self.hostileCase(status: 503), broken: "any-5xx-class")
        #expect(plain.judged["survives"]?.checked == 0 && plain.judged["survives"]?.violations == 0)
    }

    @Test("a client that calls a send sent after the server's last answer was an error fails error-is-last-answer")
    func okAfterError() async {
        let outcome = await Self.measure(Self.hostileCase(status: 503), broken: "fabricating")
        #expect((outcome.judged["error-is-last-answer"]?.violations ?? 0) > 0, "\(outcome.judged)")
    }

    @Test("hostile rules come from a stream of their own: the rest of the case is what the seed drew without them")
    func ownStream() {
        var hostile = 0
        for seed in UInt64(0)..<400 {
            let drawn = CaseGenerator.draw(seed: seed)
            var base = CaseGenerator(seed: seed)
            let plain = base.draw(seed: seed)
            #expect(Array(drawn.rules.prefix(plain.rules.count)) == plain.rules)
            let added = drawn.rules.dropFirst(plain.rules.count)
            #expect(added.count <= 2)
            if !added.isEmpty { hostile += 1 }
            let socket = CaseGenerator.draw(seed: seed, overSockets: true)
            for rule in socket.rules {
                if case .respond(let status, _, _) = rule.fault { #expect(status >= 200, "a 1xx over sockets") }
            }
        }
        // About `hostileShare` percent (20 %) of cases.
        #expect((50...110).contains(hostile), "\(hostile) of 400")
    }

    @Test("a hostile body or a status outside 100-999 is read by the plan's checks; 1000 is refused")
    func planChecks() throws {
        for name in BodySpec.hostileNames {
            let plan = try FaultPlan.decode(
                Data(#"{"rules": [{"action": {"type": "respond", "status": 999, "body": "\#(name)"}}]}"#.utf8))
            #expect(plan.rules[0].action.body?.isHostile == true)
            #expect(plan.rules[0].action.body?.name == name)
        }
        #expect(BodySpec.megabytes.bytes.count == 4 << 20)
        #expect(String(validating: BodySpec.invalidUTF8.bytes, as: UTF8.self) == nil)
        #expect(throws: (any Error).self) {
            try FaultPlan.decode(Data(#"{"rules": [{"action": {"type": "respond", "status": 1000}}]}"#.utf8))
        }
    }
}

/// `explore --transport socket`: cases through URLSession over loopback on the real clock, bounded
/// so that a case takes seconds, judged by the properties that hold without exact time.
@Suite("explore over sockets on the real clock")
struct SocketExploreTests {
    static func options(runs: Int, broken: String? = nil) -> Explorer.Options {
        var options = Explorer.Options()
        options.overSockets = true
        options.runs = runs
        options.jobs = 3
        options.seed = 11
        options.broken = broken.flatMap(BrokenClient.named)
        options.stopOnFailure = broken != nil
        options.shrinkRuns = 12
        return options
    }

    @Test("every case is bounded for the real clock and written as a socket scenario on the real clock")
    func bounded() throws {
        for seed in UInt64(0)..<200 {
            let drawn = CaseGenerator.draw(seed: seed, overSockets: true)
            #expect(drawn.overSockets && drawn.load.sends <= 16 && drawn.client.maxRetries <= 3)
            #expect((300_000..<1_000_000).contains(drawn.client.timeout) && drawn.client.maxRetryAfter <= 1_000_000)
            #expect(drawn.client.maxDelay <= 100_000 && drawn.client.baseDelay <= 20_000)
            let scenario = try drawn.scenario(name: "socket-\(seed)", description: "")
            #expect(scenario.transport == .socket && scenario.clock == .real)
            #expect(drawn.onRealClock() == drawn)
        }
    }

    /// Judged against real time's tolerances: beside the rest of `swift test` on 2 cores a cancel
    /// once came later than 300 ms, and a final answer the server sent reached the client after its
    /// attempt timeout (under a second here), so the client rightly retried what the server's record
    /// shows as answered. CI's own `explore --transport socket` judges them on a machine that runs
    /// nothing else. `survives` is timed the same way: a hostile final answer that reached the
    /// client after its attempt timeout was rightly retried, and read as the send not ending.
    static let timed: Set<String> = [
        "cancel-aborts", "retry-after-obeyed", "waits-in-policy", "no-retry-after-final-answer", "survives",
    ]

    @Test("the SDK as it is breaks no time-free property in 12 cases over sockets")
    func correctPasses() async {
        let summary = await Explorer(options: Self.options(runs: 12)).run()
        let broken = summary.found.map(\.property).filter { !Self.timed.contains($0) }
        #expect(broken.isEmpty, "\(summary.verdictLines.filter { $0.hasPrefix("FAIL") })")
        #expect(summary.runs == 12)
        #expect(summary.verdictLines.filter { $0.hasPrefix("PASS") }.count >= 10, "\(summary.verdictLines)")
    }

    @Test("a client that changes its key on every attempt is found over sockets and shrunk to a socket file")
    func brokenFound() async throws {
        let summary = await Explorer(options: Self.options(runs: 30, broken: "key-changing")).run()
        let found = try #require(summary.found.first { $0.property == "same-key" }, "\(summary.verdictLines)")
        #expect(found.shrunk.overSockets)
        let text = found.fileText(name: "found-1", path: "found/found-1.json", broken: nil)
        let scenario = try Scenario.load(data: Data(text.utf8), file: "found-1.json")
        #expect(scenario.transport == .socket && scenario.clock == .real)
        // The run that found it, as both sides saw it, is kept: a real-clock replay may pass.
        let evidence = try #require(found.original.evidence)
        #expect(evidence.contains("trace of send 0:") && evidence.contains("client saw: "), "\(evidence)")
        #expect(evidence.contains("server attempt 2:"), "\(evidence)")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("evidence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var written = summary
        try ExploreWriter.claim(root: root, runID: "t").write(&written)
        let file = try #require(written.found.first { $0.property == "same-key" }?.file)
        let traces = try String(contentsOfFile: Found.tracePath(file), encoding: .utf8)
        #expect(
            traces.hasPrefix("case \(found.original.index) (seed \(found.original.drawn.seed)) as explore first ran it")
        )
        #expect(traces.contains(evidence))
        #expect(written.verdictLines.contains("  the run that found it: " + Found.tracePath(file)))
    }

    @Test("a client that never arms its attempt timeout hangs on a hung request: a hang naming the open sends")
    func hangIsAVerdict() async {
        var drawn = ExploreCase(seed: 3)
        drawn.rules = [ExploreCase.Rule(endpoint: "send", fault: .hang)]
        drawn.client.maxRetries = 1
        drawn.client.timeout = 300_000
        drawn = drawn.onRealClock()
        var options = Self.options(runs: 1, broken: "no-timeout")
        // Under the 4 s after which, measured here, the hung request ended without the SDK's timeout.
        options.hangLimit = 2
        let outcome = await Explorer(options: options).measure(drawn, index: 0, schedule: .fifo)
        #expect(outcome.broken.contains(Explorer.runCompletes))
        #expect(outcome.error?.contains("hang: the run did not end within 2 s") == true, "\(outcome.error ?? "")")
        // The count is the process's: other tests' sends may be open beside this one.
        #expect(outcome.error?.contains(" open sends") == true, "\(outcome.error ?? "")")
        // The SDK as it is ends the same case (a generous limit: the other tests load the machine).
        options.broken = nil
        options.hangLimit = 30
        let correct = await Explorer(options: options).measure(drawn, index: 0, schedule: .fifo)
        #expect(correct.error == nil && correct.broken.isEmpty, "\(correct.broken) \(correct.error ?? "")")
    }

    @Test("on the real clock a late cancel is judged against the allowance, and libcurl's resends are not judged")
    func realClockJudgement() throws {
        let cancel = try #require(ExploreProperty.all.first { $0.name == "cancel-aborts" })
        let metrics: [String: Double] = [
            "status.cancelled": 3, "status.cancelled_not_aborted": 0, "status.attempts_after_cancel": 0,
            "status.cancel_late.max": 120,
        ]
        #expect(cancel.judge(metrics) == (3, 120))
        #expect(cancel.judge(metrics, realClock: true) == (3, 0))
        var late = metrics
        late["status.cancel_late.max"] = ExploreProperty.realClockCancelAllowance + 1
        #expect(cancel.judge(late, realClock: true) == (3, 1))
        let reported = try #require(ExploreProperty.all.first { $0.name == "attempts-reported" })
        let hidden: [String: Double] = ["send.sends": 5, "attempts.unseen": 0, "attempts.unreported": 2]
        #expect(reported.judge(hidden) == (5, 2))
        #expect(reported.judge(hidden, realClock: true) == (5, 0))
        var invented = hidden
        invented["attempts.unseen"] = 1
        #expect(reported.judge(invented, realClock: true) == (5, 1))
    }
}

/// What a dying explore process says about the cases it was running (`CrashNote`).
@Suite("explore: the cases in flight when the process dies")
struct CrashNoteTests {
    @Test("each running case names the command that runs it again; an ended one is gone")
    func rerunCommand() {
        var options = Explorer.Options()
        options.seed = 42
        options.overSockets = true
        options.broken = BrokenClient.named("any-5xx-class")
        let explorer = Explorer(options: options)
        #expect(
            explorer.rerunCommand(through: 16)
                == "frontmail-bench explore --seed 42 --runs 17 --jobs 1 --transport socket --broken any-5xx-class")
        options = Explorer.Options()
        options.schedule = .random
        #expect(
            Explorer(options: options).rerunCommand(through: 0)
                == "frontmail-bench explore --seed 1 --runs 1 --jobs 1 --schedule random")
        CrashNote.install()
        CrashNote.install()
        let long = String(repeating: "x", count: 1_000)
        CrashNote.running(index: 7 + CrashNote.slots * 1_000, line: long)
        #expect(CrashNote.line(7) == String(repeating: "x", count: CrashNote.width - 2) + "\n")
        CrashNote.running(index: 7, line: "  case 7")
        #expect(CrashNote.line(7) == "  case 7\n")
        CrashNote.ended(index: 7)
        #expect(CrashNote.line(7) == "")
    }
}
