import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The decision an SRE ships from: success within the user's deadline, the latency of the sends
/// in time as a criterion of its own, and the storms sweep's veto; each beside the decision that
/// ignores it and gets it wrong.
@Suite("tune: deadlines, the latency criterion, the storms' veto and the overloaded class")
struct TuneDecisionTests {
    typealias Rule = TuneRuleTests

    /// A cell whose one seed has `sends` sends and an ok send at each of `okMs` (policy ms).
    static func cell(_ policy: PolicyPoint, _ environment: TuneEnvironment, sends: Int = 10_000, okMs: [Double])
        -> TuneCell
    {
        var cell = TuneCell(policy: policy, environment: environment)
        var run = RunFigures()
        run.sends = sends
        run.started = sends
        run.ok = okMs.count
        run.serverRequests = sends
        run.okLatencies = okMs.sorted()
        var latency = Histogram()
        for value in okMs.prefix(50) { latency.record(value / 1000, scale: 1e9) }
        run.latency = latency.compacted
        cell.runs = [run, run]
        return cell
    }

    @Test(
        "a deadline turns late successes into failures: the policy that waits out an outage wins without one, loses with 30 s"
    )
    func deadline() {
        let e = Rule.environment("outage")
        let patient = Self.cell(
            Rule.policy(5), e, okMs: Array(repeating: 800, count: 9_000) + Array(repeating: 45_000, count: 1_000))
        let prompt = Self.cell(Rule.policy(3), e, okMs: Array(repeating: 800, count: 9_500))
        // No deadline (the rule before deadlines): the patient policy's late sends count.
        #expect(TuneRule.decide([patient, prompt]).recommended == Rule.policy(5))
        let objective = TuneObjective(deadline: TimeSpan(seconds: 30))
        let judged = [patient, prompt].map { $0.judged(by: objective) }
        #expect(judged[0].okInDeadline == 18_000 && abs(judged[0].userSuccess - 0.9) < 1e-12)
        #expect(TuneRule.decide(judged).recommended == Rule.policy(3))
        // A deadline at the boundary counts a send ending exactly then.
        #expect(patient.judged(by: TuneObjective(deadline: TimeSpan(seconds: 45))).okInDeadline == 20_000)
        // The quantile is over the sends in time only: 800 ms, not the 45 s tail.
        #expect(judged[0].okLatency == 800 && patient.okLatency == 45_000)
        // The file's deadline decides; the compared ones and "none" are decided too, shortest first,
        // except in an interrupted sweep (it must end soon).
        var tune = Rule.sweep()
        tune.objective = TuneObjective(deadline: TimeSpan(seconds: 30), compare: [TimeSpan(seconds: 10)])
        let report = TuneReport(tune: tune, cells: [patient, prompt])
        #expect(report.decision.recommended == Rule.policy(3))
        #expect(report.alternatives.map(\.objective.deadlineText) == ["10s", "30s", "none"])
        #expect(report.alternatives.last?.decision.recommended == Rule.policy(5))
        #expect(report.deadlinesCSV.split(separator: "\n").count == 4)
        #expect(TuneReport(tune: tune, cells: [patient, prompt], interrupted: true).alternatives.count == 1)
        // A signal while deciding: the file's own decision is made, the rest skipped.
        let stopped = TuneReport(tune: tune, cells: [patient, prompt], stop: { true })
        #expect(stopped.alternatives.map(\.objective.deadlineText) == ["30s"])
        #expect(stopped.decision.recommended == Rule.policy(3))
    }

    /// Policies r5 (the default) and r3 over an outage and a brownout.
    static func twoBySweep(seeds: Int) -> (TuneFile, outage: TuneEnvironment, brownout: TuneEnvironment) {
        let outage = Rule.environment("outage")
        let brownout = Rule.environment("brownout")
        var tune = Rule.sweep()
        tune.grid.points = [Rule.policy(5), Rule.policy(3)]
        tune.defaultPolicy = Rule.policy(5)
        tune.environments = [outage, brownout]
        tune.seeds = seeds
        return (tune, outage, brownout)
    }

    /// A cell where five retries deliver 9,900 sends of 10,000 and fewer retries 9,000.
    static func retriesWin(_ policy: PolicyPoint, _ environment: TuneEnvironment) -> TuneCell {
        cell(policy, environment, okMs: Array(repeating: 800, count: policy.maxRetries == 5 ? 9_900 : 9_000))
    }

    @Test("an interrupted sweep recommends nothing unless every planned cell finished on every seed")
    func interruptedRecommendsNothing() {
        let (tune, outage, brownout) = Self.twoBySweep(seeds: 2)
        let cells = [Rule.policy(5), Rule.policy(3)].flatMap { policy in
            [outage, brownout].map { Self.retriesWin(policy, $0) }
        }
        // Every cell on every seed: the rule's answer, signal or not.
        #expect(TuneReport(tune: tune, cells: cells, interrupted: true).decision.recommended == Rule.policy(5))
        #expect(TuneReport(tune: tune, cells: cells).decision.recommended == Rule.policy(5))
        // One environment of two (the signal came before the brownout ran): no recommendation.
        let half = TuneReport(tune: tune, cells: cells.filter { $0.environment.name == "outage" }, interrupted: true)
        #expect(half.decision.recommended == nil)
        #expect(half.text.contains("recommended: none (the sweep was interrupted with 2 of 4 cells measured"))
        // Before any run: the same, not "no policy without a duplicate".
        let none = TuneReport(tune: tune, cells: [], interrupted: true)
        #expect(none.decision.outcome.decidedBy.contains("0 of 4 cells"), "\(none.decision.outcome.decidedBy)")
        // A cell with one seed of two is not measured on every seed.
        var short = cells
        short[0].runs.removeLast()
        #expect(TuneReport(tune: tune, cells: short, interrupted: true).decision.recommended == nil)
    }

    @Test("a quick sweep is not a decision: it says what it cut and names the rule's pick, never as a recommendation")
    func quickRecommendsNothing() throws {
        var (tune, outage, _) = Self.twoBySweep(seeds: 3)
        tune.base.load.duration = TimeSpan(seconds: 60)
        tune.quick = TuneQuick(
            seeds: 2, grid: nil, environments: ["outage"], duration: TimeSpan(seconds: 10))
        let quick = tune.quickened()
        #expect(quick.reduced == "2 of 3 seeds, 1 of 2 environments, runs of 10s, not 60s")
        let cells = [Rule.policy(5), Rule.policy(3)].map { Self.retriesWin($0, outage) }
        // The same cells as the whole sweep's: the rule's answer (the control).
        var whole = tune
        whole.environments = [outage]
        whole.seeds = 2
        #expect(TuneReport(tune: whole, cells: cells).decision.recommended == Rule.policy(5))
        // As a quick sweep: none, with the pick named as what it is.
        let report = TuneReport(tune: quick, cells: cells)
        #expect(report.decision.recommended == nil && report.recommendedLabel == nil)
        #expect(report.decision.outcome.winner == Rule.policy(5))
        #expect(
            report.text.contains(
                "recommended: none (a quick sweep is not a decision: 2 of 3 seeds, 1 of 2 environments, runs of 10s, not 60s"
            ))
        #expect(report.text.contains("the rule's pick over these cells, not a recommendation: \(Rule.policy(5).label)"))
        #expect(!report.text.contains("tied set"))
        #expect(report.regret.allSatisfy { $0.against != .recommended })
        #expect(report.decisionHTML.contains("Recommended: none (a quick sweep"))
        // A quick block that cuts nothing is the whole sweep, which may decide.
        var same = tune
        same.quick = TuneQuick(seeds: 3, grid: tune.grid, environments: ["outage", "brownout"], duration: nil)
        #expect(same.quickened().reduced == nil)
        // Without a block, --quick is one seed; a grid of other policies is named as such.
        tune.quick = nil
        #expect(tune.quickened().reduced == "1 of 3 seeds")
        var other = PolicyGrid()
        other.points = [Rule.policy(2)]
        tune.quick = TuneQuick(seeds: nil, grid: other, environments: nil, duration: nil)
        #expect(tune.quickened().reduced == "a grid of 2 policies, not the file's 2")
        // The same policies listed another way cut nothing; fewer of the file's are counted.
        other.points = [Rule.policy(3)]
        tune.quick = TuneQuick(seeds: nil, grid: other, environments: nil, duration: nil)
        #expect(tune.quickened().reduced == nil)
        tune.grid.points = [Rule.policy(5), Rule.policy(3), Rule.policy(2)]
        #expect(tune.quickened().reduced == "2 of 3 policies")
    }

    @Test(
        "the latency criterion is a geometric mean over environments: one environment's long Retry-After cannot decide alone"
    )
    func latencyStretch() {
        let brownout = Rule.environment("brownout")
        let limited = Rule.environment("rate-limit-long")
        let fast = Rule.policy(3)
        let slow = Rule.policy(5)
        let cells = [
            Self.cell(fast, brownout, okMs: Array(repeating: 700, count: 10_000)),
            Self.cell(slow, brownout, okMs: Array(repeating: 2_400, count: 10_000)),
            // Set by the environment: the same 60 s for both.
            Self.cell(fast, limited, okMs: Array(repeating: 60_000, count: 10_000)),
            Self.cell(slow, limited, okMs: Array(repeating: 60_000, count: 10_000)),
        ]
        let outcome = TuneRule.outcome(cells)
        #expect(outcome.winner == fast && outcome.decidedBy == TuneRule.latencyCriterion)
        let lowest = ["brownout": 700.0, "rate-limit-long": 60_000.0]
        let stretch = TuneRule.latencyStretch(
            Array(cells[1...].filter { $0.policy == slow }), lowest: lowest, dropped: [:])
        #expect(abs(stretch - (2_400.0 / 700).squareRoot()) < 1e-9)
    }

    // MARK: The storms' veto

    static func place(_ load: Double, _ drop: Double) -> TuneEnvironment {
        var environment = Rule.environment("storm-\(Int(load * 100))-\(Int(drop))s")
        environment.map = .init(load: load, drop: TimeSpan(seconds: drop))
        return environment
    }

    static func stormCell(_ policy: PolicyPoint, _ environment: TuneEnvironment, _ verdict: StormVerdict) -> TuneCell {
        var cell = TuneCell(policy: policy, environment: environment)
        var run = RunFigures()
        run.sends = 1000
        run.ok = 1000
        run.metastable = verdict == .metastable
        run.offeredBefore = 100
        run.goodputBefore = verdict == .overloaded ? 50 : 100
        cell.runs = [run]
        return cell
    }

    /// The storms sweep: the default recovers at 0.70 after 5 s and 30 s, the storm policy does
    /// not; at 0.95 every policy is overloaded before the drop.
    static func storms() -> (TuneFile, [TuneCell]) {
        var tune = Rule.sweep()
        tune.name = "storms"
        let places = [place(0.7, 5), place(0.7, 30), place(0.95, 30)]
        tune.environments = places
        let storm = PolicyPoint(
            maxRetries: 10, baseDelay: .milliseconds(1), maxDelay: .milliseconds(10), timeout: .milliseconds(200))
        let cells = [
            stormCell(.sdkDefault, places[0], .recovered), stormCell(.sdkDefault, places[1], .recovered),
            stormCell(.sdkDefault, places[2], .overloaded), stormCell(storm, places[0], .metastable),
            stormCell(storm, places[1], .metastable), stormCell(storm, places[2], .overloaded),
        ]
        return (tune, cells)
    }

    /// The decided sweep: the patient policy (5 retries) beats the default in an outage.
    static func primary() -> (TuneFile, [TuneCell]) {
        var tune = Rule.sweep()
        let outage = Rule.environment("outage")
        tune.environments = [outage]
        let cells = [
            Rule.cell(Rule.policy(5), outage, ok: [9_900, 9_900]),
            Rule.cell(.sdkDefault, outage, ok: [9_000, 9_000]),
        ]
        return (tune, cells)
    }

    @Test(
        "a policy metastable where another recovers is excluded and the rule runs again; the screen stops at the first failing place"
    )
    func stormsVeto() async throws {
        let (tune, cells) = Self.primary()
        let (storms, stormCells) = Self.storms()
        let screen = try #require(StormScreen(storms: storms, cells: stormCells))
        // Longest drop first; 0.95 is overloaded for every policy, so it is no place to judge by.
        #expect(screen.recoverable.map(\.drop) == [30, 5])
        // Without the storms (the decision before them) the patient policy is recommended.
        #expect(TuneReport(tune: tune, cells: cells).decision.recommended == Rule.policy(5))
        var asked: [String] = []
        let joint = await JointDecision.make(tune: tune, cells: cells, screens: [screen]) { policy, environment, _ in
            asked.append("\(policy.maxRetries)@\(environment.name)")
            return Self.stormCell(policy, environment, environment.map?.drop.seconds == 30 ? .metastable : .recovered)
        }
        #expect(asked == ["5@storm-70-30s"])
        #expect(joint.complete && joint.excluded(for: tune.objective) == [Rule.policy(5)])
        let report = TuneReport(tune: tune, cells: cells, joint: joint)
        #expect(report.decision.recommended == PolicyPoint.sdkDefault, "\(report.text)")
        #expect(report.text.contains("storms: recovers in all 2 places of storms where some policy recovers"))
        #expect(report.text.contains("1 of 3 places where no policy recovers"))
        let rows = StormScreen.header + "\n" + joint.screens[0].rows
        #expect(rows.contains("storms,r5-b300ms-m10s-t15s,none,storm-70-30s,0.7,30,metastable,,screen,\n"))
        #expect(report.deadlinesCSV.contains(",r3-b300ms-m10s-t15s,"))
        // The report shows the decision first: the recommendation, the storms' verdict, the regret's columns.
        let html = report.decisionHTML
        #expect(html.contains("Recommended: <code><b>r3-b300ms-m10s-t15s</b></code>"))
        #expect(html.contains("Storms: recovers in all 2 places of storms"))
        #expect(html.contains("<th>extra dead /10k</th>") && html.contains("1 policies excluded by the storms"))
        #expect(
            report.htmlSection.range(of: "Recommended:")!.lowerBound
                < report.htmlSection.range(of: "<details>")!.lowerBound)
    }

    @Test("a policy that recovers wherever some policy does is kept, and is run at every such place to know it")
    func stormsPass() async throws {
        let (tune, cells) = Self.primary()
        let (storms, stormCells) = Self.storms()
        let screen = try #require(StormScreen(storms: storms, cells: stormCells))
        var asked = 0
        let joint = await JointDecision.make(tune: tune, cells: cells, screens: [screen]) { policy, environment, _ in
            asked += 1
            // Metastable only where no policy recovers: no veto.
            return Self.stormCell(policy, environment, environment.map?.load == 0.95 ? .metastable : .recovered)
        }
        #expect(asked == 2 && joint.excluded(for: tune.objective).isEmpty)
        #expect(TuneReport(tune: tune, cells: cells, joint: joint).decision.recommended == Rule.policy(5))
    }

    @Test("overloaded before the drop where another recovers vetoes too; an interrupted screen says it is incomplete")
    func overloadedVetoAndInterruption() async throws {
        let (tune, cells) = Self.primary()
        let (storms, stormCells) = Self.storms()
        let screen = try #require(StormScreen(storms: storms, cells: stormCells))
        let overloaded = await JointDecision.make(tune: tune, cells: cells, screens: [screen]) {
            policy, environment, _ in
            Self.stormCell(policy, environment, .overloaded)
        }
        #expect(overloaded.excluded(for: tune.objective) == [Rule.policy(5)])
        #expect(
            overloaded.verdicts(of: Rule.policy(5))[0].hasPrefix("overloaded before the drop at load 0.70, 30s drop"))
        let interrupted = await JointDecision.make(tune: tune, cells: cells, screens: [screen]) { _, _, _ in nil }
        #expect(!interrupted.complete)
        #expect(TuneReport(tune: tune, cells: cells, joint: interrupted).text.contains("interrupted"))
    }

    @Test("a cell whose goodput before the drop is under 90 % of the offered load is overloaded: never M or R")
    func overloadedClass() {
        let e = Self.place(0.95, 30)
        let cell = Self.stormCell(.sdkDefault, e, .overloaded)
        #expect(cell.verdict == .overloaded && cell.metastable == nil && abs(cell.goodputBeforeShare - 0.5) < 1e-12)
        // An overloaded cell does not exclude its policy (there was no level to come back to).
        #expect(TuneRule.candidates([cell]).keys.contains(.sdkDefault))
        var kept = cell
        kept.runs[0].goodputBefore = 90
        #expect(kept.verdict == .recovered)
        kept.runs[0].metastable = true
        #expect(kept.verdict == .metastable)
        guard let map = MetastabilityMap([cell, Self.stormCell(Rule.policy(5), e, .recovered)]) else {
            Issue.record("no map")
            return
        }
        #expect(map.text[1].contains("O") && map.csv.contains(",overloaded,0.5"))
        let heatMap = HTMLReport.metastabilityHeatMap(map.csv)
        #expect(heatMap.contains("overloaded before the drop"))
    }

    /// 5 workers of 50 ms (capacity ≈ 100/s), a drop to 20 % from 6 s to 8 s: offered at 0.5 and
    /// at 1.2 of capacity.
    static let overload = """
        {"name": "o", "seeds": 1,
         "base": {"load": {"type": "open", "policyTime": true, "rate": 50, "duration": "24s", "maxInFlight": 20000},
                  "plan": {"capacity": {"workers": 5, "serviceTime": {"type": "exponential", "mean": "50ms", "cap": "500ms"}, "mode": "queue", "abandoned": "serve"}}},
         "environments": [
           {"name": "light", "map": {"load": 0.5, "drop": "2s"}, "metastability": {"window": "12s"},
            "capacity": {"workers": 5, "serviceTime": {"type": "exponential", "mean": "50ms", "cap": "500ms"}, "mode": "queue", "abandoned": "serve",
                         "schedule": [{"from": "6s", "to": "8s", "factor": 0.2}]}},
           {"name": "over", "map": {"load": 1.2, "drop": "2s"}, "metastability": {"window": "12s"},
            "load": {"type": "open", "policyTime": true, "rate": 120, "duration": "24s", "maxInFlight": 20000},
            "capacity": {"workers": 5, "serviceTime": {"type": "exponential", "mean": "50ms", "cap": "500ms"}, "mode": "queue", "abandoned": "serve",
                         "schedule": [{"from": "6s", "to": "8s", "factor": 0.2}]}}],
         "grid": {}}
        """

    @Test(
        "measured: offered above capacity is overloaded before the drop (goodput share under 0.9); at half of it, judged"
    )
    func overloadedMeasured() async throws {
        let tune = try TuneTests.tune(Self.overload)
        let report = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 2).run())
        let light = try #require(report.measured.first { $0.environment.name == "light" })
        let over = try #require(report.measured.first { $0.environment.name == "over" })
        #expect(light.verdict == .recovered && light.goodputBeforeShare > 0.9, "\(report.text)")
        #expect(over.verdict == .overloaded && over.goodputBeforeShare < 0.9, "\(report.text)")
        #expect(report.map?.text.last?.contains("O") == true)
        #expect(report.text.contains("dead work: counted until each server's queue was empty"))
        #expect(report.text.contains("no queue outlasted that"))
    }

    @Test("a cell whose queue outlasted the drain limit is named: its dead work is counted only to the limit")
    func drainLimitSaid() {
        var cell = Self.stormCell(.sdkDefault, Self.place(0.95, 30), .metastable)
        cell.runs[0].drainLimited = true
        let text = TuneReport(tune: Rule.sweep(), cells: [cell]).text
        #expect(text.contains("1 cells' queues outlasted it and are counted to it: storm-95-30s r3-b300ms-m10s-t15s"))
        #expect(
            TuneReport(tune: Rule.sweep(), cells: [Self.stormCell(.sdkDefault, Self.place(0.95, 30), .metastable)]).text
                .contains("dead work:") == false)
    }

    @Test("the quantile of the sends in time is the nearest rank of the seeds' latencies pooled, whatever their sizes")
    func pooledQuantile() {
        var random = SeededRandom(seed: 40)
        for round in 0..<300 {
            var cell = TuneCell(policy: .sdkDefault, environment: Rule.environment("e"))
            for _ in 0..<(1 + round % 4) {
                var run = RunFigures()
                let count = Int(random.next() % 60)
                run.okLatencies = (0..<count).map { _ in Double(random.next() % 50) * 100 }.sorted()
                run.ok = count
                cell.runs.append(run)
            }
            let quantile = [0.5, 0.9, 0.99, 0.9999][round % 4]
            let deadline = round % 3 == 0 ? nil : TimeSpan(seconds: Double(random.next() % 6))
            cell.objective = TuneObjective(deadline: deadline, quantile: quantile)
            let pooled = cell.runs.flatMap(\.okLatencies).filter { $0 <= (deadline?.seconds ?? .infinity) * 1000 }
                .sorted()
            let expected =
                pooled.isEmpty
                ? Double.nan
                : pooled[min(pooled.count, max(1, Int((quantile * Double(pooled.count)).rounded(.up)))) - 1]
            #expect(cell.okLatency == expected || (cell.okLatency.isNaN && expected.isNaN), "round \(round)")
        }
    }
}
