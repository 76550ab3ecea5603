import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// The recommendation rule on cells made by hand: each property the rule promises, and the way the
/// old interval rule broke it.
@Suite("tune: the recommendation rule, its stability, the regret table and the metastability map")
struct TuneRuleTests {
    static func environment(_ name: String, map: TuneEnvironment.MapPoint? = nil) -> TuneEnvironment {
        var environment = TuneEnvironment(name: name, description: "", rules: [], capacity: nil)
        environment.map = map
        return environment
    }

    static func policy(_ retries: Int, budget: BudgetSetting = .none) -> PolicyPoint {
        PolicyPoint(
            maxRetries: retries, baseDelay: .milliseconds(300), maxDelay: TimeSpan(seconds: 10),
            timeout: TimeSpan(seconds: 15), budget: budget)
    }

    /// A cell whose seeds end `ok[i]` of `sends` sends ok, with `requests` per seed and p99 `latency`.
    static func cell(
        _ policy: PolicyPoint, _ environment: TuneEnvironment, ok: [Int], sends: Int = 10_000, requests: Int? = nil,
        latencyMs: Double = 100, deadWork: Int = 0, metastable: Bool? = nil
    ) -> TuneCell {
        var cell = TuneCell(policy: policy, environment: environment)
        for count in ok {
            var run = RunFigures()
            run.sends = sends
            run.started = sends
            run.ok = count
            run.serverRequests = requests ?? sends + (sends - count)
            run.deadWork = deadWork
            run.metastable = metastable
            var latency = Histogram()
            for _ in 0..<10 { latency.record(latencyMs / 1000, scale: 1e9) }
            run.latency = latency.compacted
            run.okLatencies = Array(repeating: latencyMs, count: count)
            cell.runs.append(run)
        }
        return cell
    }

    @Test("a tie is within 0.1 point of the best; further below is worse only when the pooled counts say so")
    func standings() {
        let e = Self.environment("e")
        let best = Self.cell(Self.policy(5), e, ok: [9_900, 9_900, 9_900])
        // 0.05 point below: a tie, even with the same few failures in every seed (the old
        // zero-width interval could never reach the best).
        #expect(TuneRule.standing(Self.cell(Self.policy(3), e, ok: [9_895, 9_895, 9_895]), best: best) == .tie)
        // 1 point below on 30,000 sends: z ≈ 7.5.
        #expect(TuneRule.standing(Self.cell(Self.policy(3), e, ok: [9_800, 9_800, 9_800]), best: best) == .worse)
        // 0.3 point below on 300 sends: the counts cannot tell.
        let small = Self.cell(Self.policy(5), e, ok: [99, 99, 99], sends: 100)
        #expect(TuneRule.standing(Self.cell(Self.policy(3), e, ok: [98, 99, 98], sends: 100), best: small) == .unclear)
        #expect(abs(TuneRule.twoProportionZ(9_900, 10_000, 9_800, 10_000) - 5.82) < 0.01)
        #expect(TuneRule.twoProportionZ(10, 10, 10, 10) == 0)
    }

    @Test("variance is not rewarded: seeds that disagree do not make a worse policy competitive")
    func varianceIsNotRewarded() {
        let e = Self.environment("e")
        let f = Self.environment("f")
        // A is reliably at 0.990; B's seeds are 0.93, 0.985, 0.985 (mean 0.967). Under the old rule
        // B's wide Student-t interval (up to 1.0) reached A's and B was "competitive"; B is worse
        // here, and stays worse with any seed left out.
        let cells = [
            Self.cell(Self.policy(3), e, ok: [9_900, 9_900, 9_900]),
            Self.cell(Self.policy(5), e, ok: [9_300, 9_850, 9_850]),
            Self.cell(Self.policy(3), f, ok: [10_000, 10_000, 10_000]),
            Self.cell(Self.policy(5), f, ok: [10_000, 10_000, 10_000]),
        ]
        let b = cells[1]
        #expect(b.successInterval.high >= cells[0].successInterval.low)
        let decision = TuneRule.decide(cells)
        #expect(decision.standings[Self.policy(5)]?["e"] == .worse)
        #expect(decision.outcome.winner == Self.policy(3))
        #expect(decision.recommended == Self.policy(3))
        #expect(decision.stability.leaveOneOut.isEmpty)
    }

    @Test("a winner that one seed decides is no single winner, and the tied set names both")
    func unstableWinner() {
        let e = Self.environment("e")
        // Pooled, B (0.990) beats A (0.9667); without seed 2, A (1.0) beats B.
        let cells = [
            Self.cell(Self.policy(3), e, ok: [10_000, 10_000, 9_000]),
            Self.cell(Self.policy(5), e, ok: [9_900, 9_900, 9_900]),
        ]
        let decision = TuneRule.decide(cells)
        #expect(decision.outcome.winner == Self.policy(5))
        #expect(decision.stability.leaveOneOut.map(\.seed) == [2])
        #expect(!decision.stability.stable)
        #expect(decision.recommended == nil)
        #expect(decision.stability.rivals[Self.policy(3)] ?? 0 > 0)
        let text = TuneReport(tune: Self.sweep(), cells: cells).text
        #expect(text.contains("recommended: no single winner"))
        #expect(text.contains("r3-b300ms-m10s-t15s") && text.contains("without seed 2"))
    }

    @Test(
        "policies that tie everywhere are separated by the latency of their sends in time, then server load, each with its margin"
    )
    func separations() {
        let e = Self.environment("e")
        var cells = [
            Self.cell(Self.policy(3), e, ok: [10_000, 10_000], requests: 10_500),
            Self.cell(Self.policy(5), e, ok: [10_000, 10_000], requests: 10_000),
        ]
        var outcome = TuneRule.outcome(cells)
        #expect(outcome.winner == Self.policy(5) && outcome.decidedBy == "server load (mean amplification)")
        // Latency comes before load: twice as slow loses, although it sends 5 % fewer requests.
        cells[0] = Self.cell(Self.policy(3), e, ok: [10_000, 10_000], requests: 10_500, latencyMs: 100)
        cells[1] = Self.cell(Self.policy(5), e, ok: [10_000, 10_000], requests: 10_000, latencyMs: 200)
        outcome = TuneRule.outcome(cells)
        #expect(outcome.winner == Self.policy(3) && outcome.decidedBy == TuneRule.latencyCriterion)
        // Latency within 10 % and load within 1 %: no single winner.
        cells[0] = Self.cell(Self.policy(3), e, ok: [10_000, 10_000], requests: 10_050, latencyMs: 100)
        cells[1] = Self.cell(Self.policy(5), e, ok: [10_000, 10_000], requests: 10_000, latencyMs: 109)
        outcome = TuneRule.outcome(cells)
        #expect(outcome.winner == nil && outcome.tied == [Self.policy(3), Self.policy(5)])
    }

    @Test("duplicates, lost sends and metastable cells exclude a policy; with none left the rule says so")
    func exclusions() {
        let e = Self.environment("e")
        var cells = [
            Self.cell(Self.policy(3), e, ok: [10_000]),
            Self.cell(Self.policy(5), e, ok: [9_000], metastable: true),
        ]
        #expect(TuneRule.outcome(cells).winner == Self.policy(3))
        cells[0].runs[0].duplicates = 1
        let none = TuneRule.outcome(cells)
        #expect(none.winner == nil && none.tied.isEmpty)
        #expect(TuneReport(tune: Self.sweep(), cells: cells).text.contains("recommended: none"))
    }

    @Test(
        "an objective that says nothing is dropped: load equal to successes (a refused outage) gives no free frontier point"
    )
    func degenerateObjectives() {
        let e = Self.environment("outage")
        // Every success is one request and failures reach nobody: amplification = success.
        var cells = [0, 1, 2, 3].map { retries in
            Self.cell(
                Self.policy(retries), e, ok: [8_000 + retries * 500], requests: 8_000 + retries * 500,
                latencyMs: 100 + Double(retries))
        }
        let dropped = Objective.degenerate(cells)
        #expect(dropped[.amplification]?.hasPrefix("no failed attempt reached the server") == true)
        #expect(dropped[.success] == nil && dropped[.p99] == nil)
        Pareto.mark(&cells)
        // Without the drop each cell trades success for load and all four sit on the frontier;
        // on success and p99 they still trade, so check the load-only trade is gone:
        #expect(cells.filter(\.pareto).count == 4)
        // With equal p99 only the most successful cell is left.
        var flat = [0, 1, 2, 3].map { retries in
            Self.cell(Self.policy(retries), e, ok: [8_000 + retries * 500], requests: 8_000 + retries * 500)
        }
        Pareto.mark(&flat)
        #expect(flat.map(\.pareto) == [false, false, false, true])
        #expect(Objective.degenerate(flat)[.p99] == "the same in every cell")
    }

    @Test("the regret table: sends lost per 10,000, extra p99, extra load and dead work of the default")
    func regret() {
        let e = Self.environment("e")
        let cells = [
            Self.cell(.sdkDefault, e, ok: [9_800], requests: 10_400, latencyMs: 300, deadWork: 50),
            Self.cell(Self.policy(5), e, ok: [9_950], requests: 10_200, latencyMs: 200, deadWork: 10),
        ]
        let table = Regret.table(cells, defaultPolicy: .sdkDefault, recommended: Self.policy(5))
        #expect(table.map(\.against) == [.best, .recommended])
        let row = table[0]
        #expect(abs(row.sendsLostPer10k - 150) < 1e-9)
        #expect(abs(row.extraServerLoadPercent - (10_400.0 / 10_200 - 1) * 100) < 1e-9)
        #expect(abs(row.extraDeadWorkPer10k - 40) < 1e-9)
        #expect(row.extraP99 > 90 && row.extraP99 < 110)
        #expect(row.csvLine.hasPrefix("e,best,r5-b300ms-m10s-t15s,0.98,0.995,150"))
    }

    @Test("the metastability map: a verdict per policy and point, and the boundary where a policy stops recovering")
    func map() {
        let points = [(0.7, 5.0), (0.7, 10.0), (0.85, 5.0), (0.85, 10.0)]
        var cells: [TuneCell] = []
        for (load, drop) in points {
            let e = Self.environment(
                "s\(Int(load * 100))-\(Int(drop))", map: .init(load: load, drop: TimeSpan(seconds: drop)))
            cells.append(Self.cell(.sdkDefault, e, ok: [10_000], metastable: load > 0.8 && drop > 6))
            cells.append(Self.cell(Self.policy(10), e, ok: [5_000], metastable: drop > 6))
        }
        guard let map = MetastabilityMap(cells) else {
            Issue.record("no map")
            return
        }
        #expect(map.loads == [0.7, 0.85] && map.drops == [5, 10])
        let boundary = map.boundary(.sdkDefault)
        #expect(boundary.map(\.load) == [0.7, 0.85] && boundary.map(\.drop) == [nil, 10])
        #expect(map.boundary(Self.policy(10)).map(\.drop) == [10, 10])
        #expect(map.csv.split(separator: "\n").count == 9)
        #expect(map.text[1].contains("R") && map.text[1].contains("M"))
        #expect(HTMLReport.metastabilityHeatMap(map.csv).contains("metastable"))
    }

    @Test("a budget that never binds leaves the brownout model alone; one that binds is not checked against it")
    func budgetInBrownout() {
        #expect(BrownoutCheck.budgetNeverBinds(.fraction(0.2), p: 0.05, retries: 3, sends: 15_000))
        #expect(BrownoutCheck.budgetNeverBinds(.standard, p: 0.05, retries: 3, sends: 15_000))
        #expect(!BrownoutCheck.budgetNeverBinds(.fraction(0.2), p: 0.2, retries: 3, sends: 15_000))
        #expect(BrownoutCheck.budgetNeverBinds(.fraction(0.1), p: 0.05, retries: 3, sends: 15_000))
        // A reserve of one retry is spent within the first sends.
        #expect(!BrownoutCheck.budgetNeverBinds(.fraction(0.2, burst: 1), p: 0.05, retries: 3, sends: 15_000))
    }

    static func sweep() -> TuneFile {
        TuneFile(
            name: "t", description: "",
            base: try! makeScenario(
                #"{"name": "t", "load": {"type": "open", "policyTime": true, "rate": 10, "duration": "2s"}}"#),
            environments: [], grid: PolicyGrid(),
            seeds: 1, defaultPolicy: .sdkDefault)
    }
}
