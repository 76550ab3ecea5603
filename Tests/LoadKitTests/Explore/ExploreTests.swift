import FakeFrontmail
import Foundation
import FrontmailMutants
import Simulator
import TestSupport
import Testing

@testable import LoadKit

/// The generator draws only valid scenario files, the shrinker only smaller ones, and a case's
/// JSON is the same bytes for the same seed.
@Suite("explore: generated cases", .onItsOwnThread)
struct CaseGeneratorTests {
    @Test("every drawn case is a scenario file the decoder and its range checks accept, the same for its seed")
    func drawnCasesAreValid() throws {
        var kinds: Set<String> = []
        var spellings: Set<String> = []
        for seed in UInt64(0)..<400 {
            let drawn = CaseGenerator.draw(seed: seed)
            let scenario = try drawn.scenario(name: "case-\(seed)", description: "")
            #expect(scenario.clock == .virtual)
            #expect((1...200).contains(drawn.load.sends))
            #expect(
                CaseGenerator.draw(seed: seed).json(name: "x", description: "")
                    == drawn.json(name: "x", description: ""))
            for rule in drawn.rules {
                kinds.insert(rule.fault.kind)
                if case .respond(_, let retryAfter?, _) = rule.fault {
                    spellings.insert("\(retryAfter)".prefix { $0 != "(" }.description)
                }
            }
            if drawn.capacity != nil { kinds.insert("capacity") }
        }
        // Every fault kind and every Retry-After spelling appears somewhere in 400 cases.
        let expected: Set<String> = [
            "respond", "delay", "slowBody", "hang", "reset", "close", "truncate", "commitThenDrop", "commitThenDelay",
            "refuse", "capacity",
        ]
        #expect(kinds == expected)
        #expect(spellings == ["seconds", "httpDateIn", "text"])
        #expect(CaseGenerator.draw(seed: 1) != CaseGenerator.draw(seed: 2))
    }

    @Test("every shrink candidate weighs less than its case and is still a valid file")
    func candidatesShrink() throws {
        for seed in UInt64(0)..<60 {
            let drawn = CaseGenerator.draw(seed: seed)
            for candidate in Shrinker.candidates(drawn) {
                #expect(candidate.weight < drawn.weight)
                _ = try candidate.scenario(name: "shrunk", description: "")
            }
        }
    }

    @Test("a property counts what a run recorded: its violations, and nothing where it was not checked")
    func propertyJudgement() throws {
        let property = try #require(ExploreProperty.all.first { $0.name == "one-effect-per-send" })
        #expect(
            property.judge(["idempotency.sends": 10, "idempotency.duplicates": 2, "idempotency.unexpected": 1]) == (
                10, 3
            ))
        #expect(property.judge(["idempotency.sends": 10, "idempotency.duplicates": 0]) == (10, 0))
        #expect(property.judge(["send.sends": 10]) == (0, 0))
        #expect(property.judge(["idempotency.sends": 4, "idempotency.duplicates": .nan]) == (4, 0))
        #expect(property.judge(["idempotency.sends": 4, "idempotency.duplicates": .infinity]) == (4, 1))
    }
}

/// The explorer finds nothing in the SDK as it is, and finds each broken client it is given,
/// shrunk to a small file that `run` fails on.
@Suite("explore: the search")
struct ExplorerTests {
    /// Small on purpose: the other tests of this process measure timing beside it.
    static func explore(
        runs: Int, seed: UInt64 = 1, broken: String? = nil, schedule: Schedule.Policy = .fifo
    ) async -> ExploreSummary {
        var options = Explorer.Options()
        options.schedule = schedule
        options.runs = runs
        options.seed = seed
        options.jobs = 1
        options.broken = broken.flatMap(BrokenClient.named)
        options.stopOnFailure = broken != nil
        options.shrinkRuns = 100
        return await Explorer(options: options).run()
    }

    @Test("the SDK as it is breaks no property in 40 generated cases, and the same seed gives the same table")
    func correctSDKPasses() async {
        let summary = await Self.explore(runs: 40)
        let failed = summary.failed
        #expect(!failed, "\(summary.verdictLines.filter { $0.hasPrefix("FAIL") })")
        #expect(summary.runs == 40)
        let again = await Self.explore(runs: 40)
        #expect(again.csv == summary.csv)
        // Most properties are checked somewhere in 40 cases.
        #expect(summary.verdictLines.filter { $0.hasPrefix("PASS") }.count >= 12, "\(summary.verdictLines)")
    }

    @Test("random and pct schedules: the SDK breaks no property, and the same seed gives the same table")
    func otherSchedules() async {
        for schedule in [Schedule.Policy.random, .pct(depth: 3)] {
            let summary = await Self.explore(runs: 20, seed: 5, schedule: schedule)
            let failed = summary.failed
            #expect(!failed, "\(schedule): \(summary.verdictLines.filter { $0.hasPrefix("FAIL") })")
            let again = await Self.explore(runs: 20, seed: 5, schedule: schedule)
            #expect(again.csv == summary.csv)
        }
    }

    @Test(
        "40 cases reach half of the SDK's decision points; explore.csv has a row for each (CI checks all are reached)")
    func decisionPointsReached() async {
        let summary = await Self.explore(runs: 40)
        let covered = summary.coverageLines.filter { $0.hasPrefix("COVERED") }
        #expect(covered.count >= 7, "\(summary.coverageLines)")
        let rows = summary.csv.split(separator: "\n").filter { $0.hasPrefix("decision,") }
        #expect(rows.count == DecisionPoint.allCases.count)
        #expect(rows.filter { $0.contains(",COVERED,") }.count == covered.count)
    }

    @Test(
        "a broken client is found by its property and shrunk to at most 3 sends and 5 rules",
        arguments: ["duplicating", "key-changing", "retries-final-answers", "late-deadline", "error-body-blind"])
    func brokenFound(name: String) async throws {
        let broken = try #require(BrokenClient.named(name))
        let summary = await Self.explore(runs: 40, broken: name)
        let failure = try #require(summary.found.first { $0.property == broken.property }, "\(summary.verdictLines)")
        #expect(failure.shrunk.size.sends <= 3)
        #expect(failure.shrunk.size.rules <= 5)
        // The found file is a scenario that fails the property's checks with the broken client
        // and passes them with the SDK as it is.
        let text = failure.fileText(name: "found-1", path: "found/found-1.json", broken: broken)
        let scenario = try Scenario.load(data: Data(text.utf8), file: "found-1.json")
        #expect(
            scenario.description.contains(
                "replay: frontmail-bench run found/found-1.json --seed \(failure.shrunk.seed)"))
        #expect(!scenario.assertions.isEmpty)
        var runner = ScenarioRunner(outputFolder: nil, runID: "replay", progress: false)
        runner.schedule = failure.schedule
        broken.apply(to: &runner.seams)
        let replayed = try await runner.run(scenario)
        #expect(!replayed.passed, "\(replayed.verdictLine)")
        let correct = try await ScenarioRunner(outputFolder: nil, runID: "replay", progress: false).run(scenario)
        #expect(correct.passed, "\(correct.verdictLine)")
    }
}

/// The drained shapes the shrinker tries first for a budget case: each budget defect that needs an
/// emptied bucket fails one of them in two or three sends; the SDK as it is fails none.
@Suite("explore: shrinking a budget defect")
struct DrainedShrinkTests {
    static func failures(_ broken: BrokenClient?) async -> [ExploreCase] {
        var drawn = ExploreCase(seed: 3)
        drawn.client.budget = "quota"
        drawn.load = .closed(concurrency: 4, sends: 40)
        drawn.rules = [ExploreCase.Rule(probability: 50, fault: .hang)]
        var options = Explorer.Options()
        options.broken = broken
        let explorer = Explorer(options: options)
        var failing: [ExploreCase] = []
        for candidate in Shrinker.drained(drawn) {
            #expect(candidate.load.sends <= 3 && candidate.rules.count <= 3)
            let outcome = await explorer.measure(candidate, index: 0, schedule: .fifo)
            if outcome.broken.contains("attempt-bound") { failing.append(candidate) }
        }
        return failing
    }

    @Test(
        "a defect that shows once the bucket emptied fails a drained shape of at most 3 sends",
        arguments: ["never-refilled", "never-refunds", "rewards-every-success"])
    func brokenFails(name: String) async throws {
        let broken = try #require(BrokenClient.named(name))
        let failing = await Self.failures(broken)
        #expect(!failing.isEmpty)
    }

    @Test("the SDK as it is fails no drained shape")
    func correctPasses() async {
        let failing = await Self.failures(nil)
        #expect(failing.isEmpty, "\(failing.map(\.rules))")
    }
}

/// A case's own jitter test: a hundred waits of one send are enough to catch a gross defect, and
/// its found file fails that client and passes the SDK.
@Suite("explore: jitter tested in one case")
struct CaseJitterTests {
    static let drawn: ExploreCase = {
        var drawn = ExploreCase(seed: 9)
        drawn.client.maxRetries = 100
        drawn.client.baseDelay = 10_000
        drawn.client.maxDelay = 1_000_000
        drawn.rules = [ExploreCase.Rule(fault: .respond(status: 503, retryAfter: nil, body: nil))]
        return drawn
    }()

    @Test("no jitter, equal jitter and a cap after the jitter fail it; the SDK as it is passes")
    func judged() async throws {
        for name in ["no-jitter", "equal-jitter", "cap-after-jitter"] {
            var options = Explorer.Options()
            options.broken = BrokenClient.named(name)
            let outcome = await Explorer(options: options).measure(Self.drawn, index: 0, schedule: .fifo)
            #expect(outcome.realized.count == 100)
            #expect(outcome.broken == [ExploreProperty.jitterUniform], "\(name)")
        }
        let correct = await Explorer(options: Explorer.Options()).measure(Self.drawn, index: 0, schedule: .fifo)
        let judged = correct.judged[ExploreProperty.jitterUniform]
        #expect(judged?.checked == 1 && judged?.violations == 0)
        #expect(correct.broken.isEmpty)
    }

    @Test("the found file asserts the case's distance from uniform: the broken client fails it, the SDK passes")
    func foundFile() async throws {
        let broken = try #require(BrokenClient.named("no-jitter"))
        var options = Explorer.Options()
        options.broken = broken
        let outcome = await Explorer(options: options).measure(Self.drawn, index: 0, schedule: .fifo)
        let found = Found(
            property: ExploreProperty.jitterUniform, original: outcome, shrunk: Self.drawn, schedule: .fifo,
            traceSend: 0, metrics: outcome.metrics, error: nil, shrinkRuns: 0, secondsToFind: 0)
        let text = found.fileText(name: "jitter-1", path: "found/jitter-1.json", broken: broken)
        let scenario = try Scenario.load(data: Data(text.utf8), file: "jitter-1.json")
        #expect(scenario.assertions.map(\.text) == ["jitter.exact_realized_ks_d < 0.323003"])
        var runner = ScenarioRunner(outputFolder: nil, runID: "replay", progress: false)
        broken.apply(to: &runner.seams)
        let replayed = try await runner.run(scenario)
        #expect(!replayed.passed, "\(replayed.verdictLine)")
        let correct = try await ScenarioRunner(outputFolder: nil, runID: "replay", progress: false).run(scenario)
        #expect(correct.passed, "\(correct.verdictLine)")
    }
}

/// Every property has a broken client that breaks it: the two whose properties had none.
@Suite("explore: a broken client for every property")
struct EveryPropertyBrokenTests {
    @Test(
        "an accepted send reported refused breaks failed-means-no-effect; a timeout never armed, under a hang, run-completes",
        arguments: [("success-as-refusal", "failed-means-no-effect"), ("no-timeout", Explorer.runCompletes)])
    func broken(name: String, property: String) async throws {
        let client = try #require(BrokenClient.named(name))
        var options = Explorer.Options()
        options.broken = client
        var drawn = ExploreCase(seed: 4)
        if name == "no-timeout" { drawn.rules = [ExploreCase.Rule(attempt: 1, fault: .hang)] }
        let outcome = await Explorer(options: options).measure(drawn, index: 0, schedule: .fifo)
        #expect(outcome.broken.contains(property), "\(outcome.broken) \(outcome.error ?? "")")
        let correct = await Explorer(options: Explorer.Options()).measure(drawn, index: 0, schedule: .fifo)
        #expect(correct.broken.isEmpty)
    }

    @Test("every property of the catalog is some broken client's")
    func everyProperty() {
        let caught = Set(BrokenClient.all.map(\.property))
        for name in ExploreProperty.names + [Explorer.runCompletes] { #expect(caught.contains(name), "\(name)") }
    }
}
