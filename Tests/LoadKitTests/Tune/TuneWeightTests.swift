import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// Environments weighed by how often their incident happens (`weight`): every sum of the rule over
/// environments is weighted, only the weights' ratios matter, and weights of 1 are the rule without
/// them, figure for figure.
@Suite("tune: weights of environments")
struct TuneWeightTests {
    typealias Rule = TuneRuleTests

    @Test("a weight is a number from 0.000001 to 1,000,000; anything else names the field")
    func reading() throws {
        func read(_ weight: String) throws(InputError) -> TuneFile {
            try TuneScaleTests.read(
                TuneScaleTests.file().replacingOccurrences(
                    of: #"{"name": "calm"}"#, with: #"{"name": "calm", "weight": \#(weight)}"#))
        }
        #expect(try read("0.5").environments[1].weight == 0.5)
        #expect(try read("1000000").environments[1].weight == 1e6)
        #expect(try TuneScaleTests.read(TuneScaleTests.file()).environments[1].weight == nil)
        for bad in ["0", "-1", "1e-7", "2000000", "\"10\"", "null"] {
            do {
                let tune = try read(bad)
                // null is no weight.
                #expect(bad == "null" && tune.environments[1].weight == nil, "weight \(bad) was read")
            } catch {
                #expect(error.path == "environments[1].weight", "\(bad): \(error)")
            }
        }
    }

    /// The frequent outage and two rare incidents; `steady` wins the outage, `eager` the others.
    static func incidents(weight: Double?) -> (steady: PolicyPoint, eager: PolicyPoint, cells: [TuneCell]) {
        var outage = Rule.environment("outage")
        outage.weight = weight
        let rare = [Rule.environment("rare-a"), Rule.environment("rare-b")]
        let (steady, eager) = (Rule.policy(3), Rule.policy(5))
        var cells = [Rule.cell(steady, outage, ok: [9_900, 9_900]), Rule.cell(eager, outage, ok: [9_000, 9_000])]
        for environment in rare {
            cells.append(Rule.cell(steady, environment, ok: [9_500, 9_500]))
            cells.append(Rule.cell(eager, environment, ok: [9_800, 9_800]))
        }
        return (steady, eager, cells)
    }

    @Test("an incident ten times as frequent outweighs two rare ones; unweighted, the rare ones outvote it")
    func frequentIncident() {
        let unweighted = Self.incidents(weight: nil)
        #expect(TuneRule.decide(unweighted.cells).recommended == unweighted.eager)
        let weighted = Self.incidents(weight: 10)
        #expect(TuneRule.decide(weighted.cells).recommended == weighted.steady)
        // Below two, two rare incidents still outvote it.
        #expect(TuneRule.decide(Self.incidents(weight: 1.5).cells).recommended == weighted.eager)
        var tune = Rule.sweep()
        tune.environments = Array(Set(weighted.cells.map(\.environment))).sorted { $0.name < $1.name }
        #expect(TuneReport(tune: tune, cells: weighted.cells).text.contains("weights (each environment counts"))
        #expect(TuneReport(tune: tune, cells: weighted.cells).text.contains(": outage 10"))
        tune.environments = Array(Set(unweighted.cells.map(\.environment))).sorted { $0.name < $1.name }
        #expect(!TuneReport(tune: tune, cells: unweighted.cells).text.contains("weights ("))
    }

    @Test("weights of 1 are the rule without weights, figure for figure; scaling every weight changes nothing")
    func neutralWeights() {
        var random = SeededRandom(seed: 0x7765_6967)
        for round in 0..<200 {
            let policies = (0..<(2 + Int(random.next() % 3))).map { Rule.policy($0 + 1) }
            let environments = (0..<(1 + Int(random.next() % 4))).map { Rule.environment("e\($0)") }
            var cells: [TuneCell] = []
            for environment in environments {
                for policy in policies {
                    let ok = (0..<2).map { _ in 9_000 + Int(random.next() % 1_000) }
                    cells.append(
                        Rule.cell(
                            policy, environment, ok: ok, latencyMs: Double(100 + random.next() % 900),
                            deadWork: Int(random.next() % 50)))
                }
            }
            func weighted(_ weight: Double?) -> [TuneCell] {
                cells.map { cell in
                    var copy = cell
                    copy.environment.weight = weight
                    return copy
                }
            }
            let (plain, ones, twos) = (weighted(nil), weighted(1), weighted(2))
            #expect(TuneRule.outcome(plain) == TuneRule.outcome(ones), "round \(round)")
            #expect(TuneRule.outcome(plain) == TuneRule.outcome(twos), "round \(round)")
            let best = TuneRule.best(TuneRule.candidates(plain))
            let lowest = Dictionary(grouping: plain, by: \.environment.name).mapValues {
                $0.map(\.okLatency).min() ?? 1
            }
            for policy in policies {
                let (a, b) = (plain.filter { $0.policy == policy }, ones.filter { $0.policy == policy })
                #expect(TuneRule.sendsLost(a, best: best).bitPattern == TuneRule.sendsLost(b, best: best).bitPattern)
                #expect(
                    TuneRule.serverLoad(a, dropped: [:]).bitPattern == TuneRule.serverLoad(b, dropped: [:]).bitPattern)
                #expect(TuneRule.deadWork(a).bitPattern == TuneRule.deadWork(b).bitPattern)
                #expect(
                    TuneRule.latencyStretch(a, lowest: lowest, dropped: [:]).bitPattern
                        == TuneRule.latencyStretch(b, lowest: lowest, dropped: [:]).bitPattern)
            }
        }
    }
}

/// What a swept budget counts: the quota or a percentage with `:unsent-charged` is the same budget
/// whose retries after unsent attempts cost tokens too (AWS's reading; the SDK's is free); its
/// spelling, label and order.
@Suite("tune: a budget's reading of unsent attempts")
struct UnsentChargedBudgetTests {
    @Test(
        "quota:unsent-charged and 20%:unsent-charged parse, print and label as themselves, and give AWS's charged reading"
    )
    func spelling() throws {
        let quota = try #require(BudgetSetting.parse("quota:unsent-charged"))
        #expect(quota == .unsentCharged(.quota) && quota.text == "quota:unsent-charged")
        #expect(quota.labelSuffix == "-quota-unsentcharged")
        let twenty = try #require(BudgetSetting.parse("20%:unsent-charged"))
        #expect(twenty.text == "20%:unsent-charged" && twenty.labelSuffix == "-budget20pct-unsentcharged")
        #expect(
            quota.budget?.chargesUnsentAttempts == true && BudgetSetting.quota.budget?.chargesUnsentAttempts == false)
        var expected = RetryBudget.standard
        expected.chargesUnsentAttempts = true
        #expect(quota.budget == expected)
        for bad in [
            "none:unsent-charged", ":unsent-charged", "quota:unsent-charged:unsent-charged", "quota:unsent",
            "0%:unsent-charged",
        ] {
            #expect(BudgetSetting.parse(bad) == nil, "\(bad)")
        }
        // Each reading sorts right after the budget it reads.
        let sorted: [BudgetSetting] = [.quota, twenty, .none, quota, .percent(tenths: 200)].sorted()
        #expect(sorted == [.none, .percent(tenths: 200), twenty, .quota, quota])
        // The replay of the bucket judges its figures: unsent attempts never reach the ledger.
        #expect(BudgetReplay.Model(quota) == BudgetReplay.Model(.quota))
    }

    @Test("run for real: in a 10 s refused outage the SDK's quota keeps retrying where the charged one runs dry")
    func outage() async throws {
        let tune = try TuneScaleTests.read(
            TuneScaleTests.file().replacingOccurrences(
                of: #""budget": ["none", "quota"]"#,
                with: #""budget": ["quota", "quota:unsent-charged"], "maxRetries": [10]"#))
        let cells = await TuneRunner(tune: tune, jobs: 2).run().filter { $0.environment.name == "outage" }
        let free = try #require(cells.first { $0.policy.budget == .quota })
        let charged = try #require(cells.first { $0.policy.budget == .unsentCharged(.quota) })
        #expect(free.successRate > charged.successRate, "charged \(charged.successRate), free \(free.successRate)")
        #expect(free.duplicates == 0 && free.lost == 0)
    }
}
