import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

/// A sweep at the scale the SDK runs at (`clients`): every environment at every listed count of
/// client instances, a decision that must hold at each scale (never pooled over them), and storms
/// judged at every scale; each beside the reading that gets it wrong.
@Suite("tune: scales of client instances")
struct TuneScaleTests {
    typealias Rule = TuneRuleTests
    typealias Decision = TuneDecisionTests

    static func read(_ text: String) throws(InputError) -> TuneFile {
        var tune = try InputError.decode(TuneFile.self, from: Data(text.utf8))
        tune.base.name = tune.name
        try tune.validate()
        return tune
    }

    static func file(clients: String = "", instances: String = "", quick: String = "") -> String {
        """
        {"name": "s", \(clients.isEmpty ? "" : "\"clients\": \(clients),")
         "base": {"load": {"type": "open", "policyTime": true, "rate": 100, "duration": "20s", "maxInFlight": 20000}},
         "environments": [
           {"name": "outage", \(instances.isEmpty ? "" : "\"instances\": \(instances),")
            "rules": [{"match": {"from": "5s", "to": "15s"}, "action": {"type": "refuse"}}]},
           {"name": "calm"}],
         "grid": {"budget": ["none", "quota"]}, "seeds": 1
         \(quick.isEmpty ? "" : ", \"quick\": \(quick)")}
        """
    }

    @Test("clients is a number or an ascending list of 1-1,000 each; every environment runs at each, named per scale")
    func reading() throws {
        #expect(try Self.read(Self.file()).scaledEnvironments.map(\.name) == ["outage", "calm"])
        let one = try Self.read(Self.file(clients: "16"))
        #expect(one.clients == [16] && one.scaledEnvironments.map(\.name) == ["outage", "calm"])
        #expect(one.scaledEnvironments.allSatisfy { one.scale(of: $0) == 16 && $0.incident == nil })
        let three = try Self.read(Self.file(clients: "[1, 16, 1000]"))
        let places = three.scaledEnvironments
        #expect(places.map(\.name) == ["outage@1", "outage@16", "outage@1000", "calm@1", "calm@16", "calm@1000"])
        #expect(places.map { three.scale(of: $0) } == [1, 16, 1000, 1, 16, 1000])
        #expect(places.allSatisfy { $0.incident == $0.name.split(separator: "@").first.map(String.init) })
        // Each cell's scenario spreads its load over that many instances, under a valid name.
        let scenario = three.scenario(policy: .sdkDefault, environment: places[2], seed: 0)
        #expect(scenario.client.instances == 1000 && scenario.name == "s-outage-at1000-r3-b300ms-m10s-t15s")
        #expect(three.policies.count * places.count == 12)

        for (clients, path, reason) in [
            ("0", "clients[0]", "must be 1-1000"), ("1001", "clients[0]", "must be 1-1000"),
            ("[16, 1]", "clients[1]", "ascending"), ("[1, 1]", "clients[1]", "once each"),
            ("[]", "clients", "non-empty list"), ("\"16\"", "clients", "whole number"),
            ("[1, 2, 3, 4, 5, 6, 7, 8, 9]", "clients", "at most 8 scales, not 9"),
        ] {
            do {
                _ = try Self.read(Self.file(clients: clients))
                Issue.record("clients \(clients) was read")
            } catch {
                #expect(error.path == path && error.reason.contains(reason), "\(clients): \(error)")
            }
        }
        // The scale is the file's or an environment's, not both.
        do {
            _ = try Self.read(Self.file(clients: "[1, 16]", instances: "4"))
            Issue.record("clients beside instances was read")
        } catch {
            #expect(error.path == "environments[0].instances" && error.reason.contains("not both"))
        }
        #expect(try Self.read(Self.file(instances: "1000")).scaledEnvironments[0].instances == 1000)
        // A quick sweep at fewer scales says so, and recommends nothing.
        let quick = try Self.read(Self.file(clients: "[1, 16]", quick: #"{"clients": 1}"#)).quickened()
        #expect(quick.clients == [1] && quick.reduced == "clients 1, not 1, 16")
        do {
            _ = try Self.read(Self.file(clients: "[1, 16]", quick: #"{"clients": [3, 2]}"#))
            Issue.record("a quick list out of order was read")
        } catch {
            #expect(error.path == "quick.clients[1]")
        }
        // Cells are counted at every scale.
        do {
            _ = try Self.read(
                Self.file(clients: "[1, 2, 3, 4, 5, 6, 7, 8]").replacingOccurrences(
                    of: #""budget": ["none", "quota"]"#,
                    with: #""maxRetries": \#(Array(0...99)), "baseDelay": ["100ms", "300ms"]"#))
            Issue.record("too many cells were read")
        } catch {
            #expect(error.reason.contains("at 8 scales") && error.reason.contains("cells"), "\(error)")
        }
    }

    /// The outage and the brownout at 1 and 16 clients; `prompt` and `patient` as named.
    static func scaled(_ names: [String], _ clients: [Int]) -> (TuneFile, [[TuneEnvironment]]) {
        var tune = Rule.sweep()
        tune.environments = names.map { Rule.environment($0) }
        tune.clients = clients
        tune.grid.points = [Rule.policy(5), Rule.policy(3)]
        tune.defaultPolicy = Rule.policy(3)
        let places = tune.scaledEnvironments
        return (tune, clients.map { count in places.filter { $0.instances == count } })
    }

    @Test(
        "a policy that wins at one client but loses at sixteen is not recommended; pooling the scales as environments would"
    )
    func decisionPerScale() {
        let (tune, places) = Self.scaled(["outage", "brownout", "drop"], [1, 16])
        let (patient, prompt) = (Rule.policy(5), Rule.policy(3))
        var cells: [TuneCell] = []
        // At one client the patient policy wins everywhere; at sixteen it loses one incident of three.
        for environment in places[0] {
            cells.append(Rule.cell(patient, environment, ok: [9_900, 9_900]))
            cells.append(Rule.cell(prompt, environment, ok: [9_000, 9_000]))
        }
        for (index, environment) in places[1].enumerated() {
            cells.append(Rule.cell(patient, environment, ok: index == 0 ? [8_000, 8_000] : [9_900, 9_900]))
            cells.append(Rule.cell(prompt, environment, ok: index == 0 ? [9_500, 9_500] : [9_900, 9_900]))
        }
        // The wrong reading: six environments, five votes for the patient policy.
        #expect(TuneRule.decide(cells).recommended == patient)
        let report = TuneReport(tune: tune, cells: cells)
        #expect(report.decision.recommended == nil, "\(report.text)")
        #expect(report.decision.scales.map(\.recommended) == [patient, prompt])
        #expect(report.decision.outcome.decidedBy.contains("r5-b300ms-m10s-t15s, picked at 1 client, is not at 16"))
        #expect(report.text.contains("at each scale"))
        #expect(report.text.contains("    16 clients: r3-b300ms-m10s-t15s (decided by success)"))
        // Where both scales agree, the pick is recommended, and the standings cover every place.
        let agreeing = cells.map { cell in
            guard cell.environment.name == "outage@16" else { return cell }
            return Rule.cell(
                cell.policy, cell.environment, ok: cell.policy == patient ? [9_900, 9_900] : [9_000, 9_000])
        }
        let decided = TuneReport(tune: tune, cells: agreeing)
        #expect(decided.decision.recommended == patient)
        #expect(decided.decision.standings[patient]?.count == 6)
        #expect(decided.text.contains("recommended: r5-b300ms-m10s-t15s"))
        #expect(decided.text.contains("    1 client: r5-b300ms-m10s-t15s (decided by success)"))
    }

    @Test("a storms screen judges every scale: a policy that recovers at one client and not at sixteen is excluded")
    func stormsAtScale() async throws {
        var storms = Rule.sweep()
        storms.name = "storms"
        storms.environments = [Decision.place(0.85, 30)]
        storms.clients = [1, 16]
        let places = storms.scaledEnvironments
        #expect(places.map(\.name) == ["storm-85-30s@1", "storm-85-30s@16"])
        let quota = Rule.policy(3, budget: .quota)
        let bare = Rule.policy(3)
        // A budget per instance: at one client the quota recovers and no budget does not; at
        // sixteen instances the quota's buckets never empty and it is as metastable as none, while
        // a slower policy (the storms' third) recovers at both.
        let slow = Rule.policy(1)
        let stormCells = [
            Decision.stormCell(quota, places[0], .recovered), Decision.stormCell(quota, places[1], .metastable),
            Decision.stormCell(bare, places[0], .metastable), Decision.stormCell(bare, places[1], .metastable),
            Decision.stormCell(slow, places[0], .recovered), Decision.stormCell(slow, places[1], .recovered),
        ]
        let map = try #require(MetastabilityMap(stormCells))
        #expect(map.scaled && map.points.map(\.clients) == [1, 16])
        #expect(map.text[0].contains("0.85/30s×16"))
        #expect(map.csv.contains("r3-b300ms-m10s-t15s-quota,quota,0.85,30,storm-85-30s@16,1,"))
        #expect(map.boundary(quota).map(\.drop) == [nil, 30])
        let heat = HTMLReport.metastabilityHeatMap(map.csv)
        #expect(heat.contains("<th>0.85 / 30 s × 16 clients</th>") && heat.contains("× client instances"))
        #expect(!HTMLReport.metastabilityHeatMap(map.csv.replacingOccurrences(of: ",16\n", with: ",1\n")).contains("×"))
        let screen = try #require(StormScreen(storms: storms, cells: stormCells))
        #expect(screen.recoverable.map(\.clients) == [16, 1])
        #expect(screen.failure(of: quota)?.point.clients == 16)
        #expect(screen.verdict(of: quota).contains("metastable at load 0.85, 30s drop at 16 clients"))
        // The wrong reading: judged at one client only, the quota passes.
        var single = storms
        single.clients = [1]
        let one = try #require(
            StormScreen(storms: single, cells: Array(stormCells.filter { $0.environment.instances == 1 })))
        #expect(one.failure(of: quota) == nil)

        // The decided sweep picks the quota; the screen at scale vetoes it and runs nothing (known).
        var tune = Rule.sweep()
        let outage = Rule.environment("outage")
        tune.environments = [outage]
        // A policy the storms did not measure is run at each of their scales.
        let other = Rule.policy(2)
        tune.grid.points = [quota, other]
        let cells = [Rule.cell(quota, outage, ok: [9_900, 9_900]), Rule.cell(other, outage, ok: [9_000, 9_000])]
        var asked: [String] = []
        let joint = await JointDecision.make(tune: tune, cells: cells, screens: [screen]) { policy, environment, _ in
            asked.append(environment.name)
            return Decision.stormCell(policy, environment, .recovered)
        }
        #expect(joint.excluded(for: tune.objective) == [quota])
        #expect(asked == ["storm-85-30s@16", "storm-85-30s@1"])
        #expect(TuneReport(tune: tune, cells: cells, joint: joint).decision.recommended == other)
        #expect(
            joint.screens[0].rows.contains(
                "storms,r2-b300ms-m10s-t15s,none,storm-85-30s@16,0.85,30,recovered,,screen,16"))
    }

    @Test("run for real: a quota that empties at one client does not bind when sixteen instances share the load")
    func budgetsPerInstance() async throws {
        // AWS's reading, which charges refused connections: the one that empties in this outage.
        let charged = BudgetSetting.unsentCharged(.quota)
        let tune = try Self.read(
            Self.file(clients: "[1, 16]").replacingOccurrences(
                of: #""budget": ["none", "quota"]"#, with: #""budget": ["\#(charged.text)"], "maxRetries": [10]"#))
        let cells = await TuneRunner(tune: tune, jobs: 2).run().filter {
            $0.environment.incident == "outage" && $0.policy.budget == charged
        }
        let outage = Dictionary(uniqueKeysWithValues: cells.map { ($0.environment.name, $0) })
        let (one, sixteen) = try (#require(outage["outage@1"]), #require(outage["outage@16"]))
        #expect(one.runs.count == 1 && sixteen.runs.count == 1)
        // One bucket of 500 tokens pays 100 retries through the refused window; sixteen pay 1,600.
        #expect(sixteen.successRate > one.successRate, "1: \(one.successRate), 16: \(sixteen.successRate)")
        #expect(one.duplicates == 0 && sixteen.duplicates == 0 && one.lost == 0 && sixteen.lost == 0)
    }
}
