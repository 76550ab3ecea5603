import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// The sweep: its file's validation, its analytic check and its correctness gate, each with the
/// broken client it exists to catch.
@Suite("tune: policy sweeps, the analytic check, the recommendation")
struct TuneTests {
    static func tune(_ json: String) throws -> TuneFile {
        var tune = try JSONDecoder().decode(TuneFile.self, from: Data(json.utf8))
        tune.base.name = tune.name
        try tune.validate()
        return tune
    }

    static let brownout = """
        {"name": "t", "seeds": 1,
         "base": {"timeScale": 0.001, "load": {"type": "open", "policyTime": true, "rate": 200, "duration": "10s", "maxInFlight": 5000}},
         "environments": [{"name": "brownout-50", "rules": [{"match": {"endpoint": "send", "probability": 0.5}, "action": {"type": "respond", "status": 503}}]}],
         "grid": {"maxRetries": [1], "baseDelay": ["10ms"], "maxDelay": ["100ms"], "timeout": ["5s"]},
         "default": {"maxRetries": 1, "baseDelay": "10ms", "maxDelay": "100ms", "timeout": "5s"}}
        """

    @Test("the analytic model: success 1 − p^(r+1), attempts (1 − p^(r+1))/(1 − p), and their variance")
    func model() {
        let model = BrownoutCheck.model(p: 0.3, retries: 3)
        #expect(abs(model.success - 0.9919) < 1e-12)
        #expect(abs(model.meanAttempts - (1 - pow(0.3, 4)) / 0.7) < 1e-12)
        // min(G, 4) for G geometric with success 0.7: E[A²] by hand.
        let square = 1 * 0.7 + 4 * 0.3 * 0.7 + 9 * 0.09 * 0.7 + 16 * 0.027
        #expect(abs(model.attemptsVariance - (square - model.meanAttempts * model.meanAttempts)) < 1e-12)
        let none = BrownoutCheck.model(p: 0.2, retries: 0)
        #expect(none.success == 0.8 && none.meanAttempts == 1 && none.attemptsVariance == 0)
    }

    @Test("the real SDK agrees with the analytic model; a client with a hidden retry below it does not")
    func analyticCheck() async throws {
        let tune = try Self.tune(Self.brownout)
        let correct = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 1).run())
        let check = try #require(correct.checks.first)
        #expect(correct.checks.count == 1 && check.agrees, "\(correct.sanityCSV)")
        #expect(correct.correct)
        var broken = TuneRunner(tune: tune, jobs: 1)
        broken.seams.transportWrapper = { HiddenRetryTransport(inner: $0) }
        let report = TuneReport(tune: tune, cells: await broken.run())
        let hidden = try #require(report.checks.first)
        // Success 1 − 0.5³ = 0.875 and 1.75 requests per send instead of 0.75 and 1.5.
        #expect(!hidden.agrees && hidden.success.z > 4 && hidden.attempts.z > 4, "\(report.sanityCSV)")
        #expect(!report.correct)
        #expect(report.text.contains("SANITY CHECK FAILED"))
    }

    @Test("a client whose copies commit twice fails the sweep's correctness gate; the SDK passes it")
    func duplicatesFailTheSweep() async throws {
        let tune = try Self.tune(
            """
            {"name": "d", "seeds": 1,
             "base": {"timeScale": 0.001, "load": {"type": "open", "policyTime": true, "rate": 100, "duration": "2s"}},
             "environments": [{"name": "drops", "rules": [{"match": {"endpoint": "send", "attempt": 1, "everyNth": 3}, "action": {"type": "commitThenDrop"}}]}],
             "grid": {"maxRetries": [3]}}
            """)
        let correct = TuneReport(tune: tune, cells: await TuneRunner(tune: tune, jobs: 2).run())
        #expect(correct.correct && correct.measured.allSatisfy { $0.duplicates == 0 && $0.lost == 0 })
        var broken = TuneRunner(tune: tune, jobs: 2)
        broken.seams.transportWrapper = { DuplicatingTransport(base: $0) }
        let report = TuneReport(tune: tune, cells: await broken.run())
        #expect(!report.correct && report.measured.contains { $0.duplicates > 0 })
        #expect(report.text.contains("CORRECTNESS FAILED"))
    }

    @Test(
        "the frontier and the recommendation: no retries is on every frontier and still loses; success decides"
    )
    func frontier() {
        let environments = ["a", "b"].map {
            TuneEnvironment(name: $0, description: "", rules: [], capacity: nil, metastability: nil)
        }
        func cell(_ retries: Int, _ environment: TuneEnvironment, ok: Int, requests: Int, latencyMs: Double)
            -> TuneCell
        {
            var cell = TuneCell(
                policy: PolicyPoint(
                    maxRetries: retries, baseDelay: .milliseconds(300), maxDelay: TimeSpan(seconds: 10),
                    timeout: TimeSpan(seconds: 15)), environment: environment)
            var run = RunFigures()
            run.sends = 1000
            run.started = 1000
            run.ok = ok
            run.serverRequests = requests
            var latency = Histogram()
            for _ in 0..<100 { latency.record(latencyMs / 1000, scale: 1e9) }
            run.latency = latency.compacted
            run.okLatencies = Array(repeating: latencyMs, count: ok)
            cell.runs = [run]
            return cell
        }
        var cells = [
            // 0 retries: cheapest and fastest, loses sends in a. 1 beats 2 everywhere.
            cell(0, environments[0], ok: 800, requests: 1000, latencyMs: 50),
            cell(1, environments[0], ok: 990, requests: 1200, latencyMs: 100),
            cell(2, environments[0], ok: 985, requests: 1250, latencyMs: 120),
            cell(0, environments[1], ok: 1000, requests: 1000, latencyMs: 50),
            cell(1, environments[1], ok: 1000, requests: 1000, latencyMs: 60),
            cell(2, environments[1], ok: 1000, requests: 1000, latencyMs: 70),
        ]
        Pareto.mark(&cells)
        #expect(cells.map(\.pareto) == [true, true, false, true, false, false])
        // The frontier does not choose: 0 retries is on it and loses 19 points in a.
        let chosen = TuneRule.outcome(cells)
        #expect(chosen.winner?.maxRetries == 1 && chosen.decidedBy == "success")
        // A duplicate rules it out; 2 is then the best in a and 0 is worse there.
        cells[1].runs[0].duplicates = 1
        #expect(TuneRule.outcome(cells).winner?.maxRetries == 2)
    }

    @Test("success intervals: Student's t over seeds, Wilson's score for one seed")
    func intervals() {
        let wilson = Statistics.wilson(successes: 90, trials: 100)
        #expect(abs(wilson.low - 0.8256) < 1e-3 && abs(wilson.high - 0.9448) < 1e-3)
        var cell = TuneCell(
            policy: .sdkDefault, environment: TuneEnvironment(name: "e", description: "", rules: [], capacity: nil))
        for ok in [90, 92, 94] {
            var run = RunFigures()
            run.sends = 100
            run.ok = ok
            cell.runs.append(run)
        }
        let interval = cell.successInterval
        // mean 0.92, sd 0.02, t(2) 4.303: ± 0.0497
        #expect(abs(interval.low - (0.92 - 4.303 * 0.02 / 3.0.squareRoot())) < 1e-9)
        #expect(abs(interval.high - (0.92 + 4.303 * 0.02 / 3.0.squareRoot())) < 1e-9)
    }

    @Test(
        "a tune file names its bad field",
        arguments: [
            (#""grid": {"maxRetries": [101]}"#, "grid.maxRetries[0]: must be 0-100"),
            (#""grid": {"maxRetries": []}"#, "grid.maxRetries: must be 1-100 values"),
            (#""grid": {"maxRetrys": [1]}"#, "maxRetrys"),
            (#""grid": {"timeout": ["0s"]}"#, "grid.timeout[0]"),
            (
                #""grid": {"maxRetries": [0,1,2,3,4,5,6,7,8,9], "baseDelay": ["1ms","2ms","3ms","4ms","5ms","6ms","7ms","8ms","9ms","10ms"], "timeout": ["1s","2s","3s"]}, "seeds": 100"#,
                "cells × 100 seeds"
            ),
            (#""grid": {}, "seeds": 0"#, "seeds: must be 1-100"),
            (#""grid": {}, "quick": {"environments": ["nope"]}"#, "quick.environments[0]: no environment named 'nope'"),
            (#""grid": {}, "default": {"timeout": "-1s"}"#, "default.timeout"),
            // Two values that would name two cells alike, or a value that reads as the default's.
            (#""grid": {"baseDelay": ["300ms", "300.0001ms"]}"#, "grid.baseDelay[1]: reads 300ms, as [0] does"),
            (#""grid": {"maxRetries": [2, 2]}"#, "grid.maxRetries[1]: reads 2, as [0] does"),
            (#""grid": {"timeout": ["15.0001s"]}"#, "grid.timeout[0]: reads 15s, as the default policy's value does"),
            (#""grid": {}, "quick": {"grid": {"maxDelay": ["1s", "1.0000001s"]}}"#, "quick.grid.maxDelay[1]: reads 1s"),
            // A grid of 100 × 100 × 100 values is refused from its counts, before it is made.
            (hugeGrid, "policies × 1 environments = 1000001 cells; at most 2000"),
            // Budgets and listed points.
            (#""grid": {"budget": ["7"]}"#, "grid.budget[0]: '7' is not a budget"),
            (#""grid": {"budget": ["0%"]}"#, "grid.budget[0]: '0%' is not a budget"),
            (#""grid": {"budget": ["20%", "20.0%"]}"#, "grid.budget[1]: reads 20%, as [0] does"),
            (#""grid": {"points": []}"#, "grid.points: must be 1-1000 policies"),
            (
                #""grid": {"points": [{"maxRetries": 3}], "maxRetries": [1]}"#,
                "grid.maxRetries: give the policies as points"
            ),
            (#""grid": {"points": [{"maxRetries": 2}, {"maxRetries": 2}]}"#, "grid.points[1]: reads r2-"),
            // A listed point that reads as the default but is not it: two cells of one label.
            (#""grid": {"points": [{"timeout": "15.0001s"}]}"#, "grid.points: two policies read r3-"),
            (#""grid": {"points": [{"maxRetries": 101}]}"#, "grid.points[0].maxRetries: must be 0-100"),
            (
                #""grid": {"points": [{"maxRetries": 2, "budget": "quota"}], "budget": ["none"]}"#,
                "grid.points[0].budget: the grid's budget list is crossed"
            ),
        ])
    func badFields(fragment: String, expected: String) {
        let json = """
            {"name": "v", "base": {"timeScale": 0.01, "load": {"type": "open", "policyTime": true, "rate": 10, "duration": "2s"}},
             "environments": [{"name": "e", "rules": []}], \(fragment)}
            """
        do {
            _ = try Self.tune(json)
            Issue.record("accepted: \(fragment)")
        } catch let error as InputError {
            #expect(error.description.contains(expected), "\(error.description)")
        } catch {
            #expect(String(describing: error).contains(expected), "\(error)")
        }
    }

    /// `maxRetries`, `baseDelay` and `timeout` with 100 distinct values each.
    static let hugeGrid: String = {
        let retries = (0..<100).map(String.init).joined(separator: ",")
        let delays = (1...100).map { "\"\($0)ms\"" }.joined(separator: ",")
        let timeouts = (1...100).map { "\"\($0)s\"" }.joined(separator: ",")
        return #""grid": {"maxRetries": [\#(retries)], "baseDelay": [\#(delays)], "timeout": [\#(timeouts)]}"#
    }()

    @Test("environments, the base and every cell are checked before anything runs")
    func badEnvironments() {
        let load = #""load": {"type": "open", "policyTime": true, "rate": 10, "duration": "20s"}"#
        let cases: [(String, String)] = [
            (#"{"name": "v", "base": {\#(load)}, "environments": [], "grid": {}}"#, "environments: name at least one"),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "a b"}], "grid": {}}"#,
                "environments[0].name: must be letters, digits, - or _"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}, {"name": "e"}], "grid": {}}"#,
                "environments[1].name: 'e' names two environments"
            ),
            (
                #"{"name": "v", "base": {\#(load), "assertions": ["send.ok > 1"]}, "environments": [{"name": "e"}], "grid": {}}"#,
                "base.assertions"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "rules": [{"action": {"type": "respond", "status": 1000}}]}], "grid": {}}"#,
                "environments[0].rules[0].action.status"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "capacity": {"workers": 1, "serviceTime": "1ms", "schedule": [{"from": "5s", "to": "10s", "workers": 0}]}, "metastability": {"window": "30s"}}], "grid": {}}"#,
                "environments[0]: with policy r3-b300ms-m10s-t15s: metastability.window: the load ends at 20s"
            ),
            (
                #"{"name": "v", "base": {"timeScale": 100, "clock": "real", \#(load)}, "environments": [{"name": "e"}], "grid": {}}"#,
                "one send could take"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {"maxRetries": [10], "timeout": ["3h"]}}"#,
                "s of virtual time"
            ),
            // A map place needs a metastability judgement, a load of capacity in (0, 10], a drop.
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "map": {"load": 0.7, "drop": "5s"}}], "grid": {}}"#,
                "environments[0].map: a map point is judged by metastability"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "map": {"load": 0, "drop": "5s"}, "metastability": {}}], "grid": {}}"#,
                "environments[0].map.load: must be more than 0 and at most 10"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "map": {"load": 0.7, "drop": "0s"}, "metastability": {}}], "grid": {}}"#,
                "environments[0].map.drop"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "map": {"load": 0.7, "dorp": "5s"}, "metastability": {}}], "grid": {}}"#,
                "dorp"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "a", "map": {"load": 0.7, "drop": "5s"}, "metastability": {}}, {"name": "b", "map": {"load": 0.7, "drop": "5s"}, "metastability": {}}], "grid": {}}"#,
                "environments[1].map: environments[0] has the same place in the map"
            ),
            // The base takes the sweep's name; a grid's numbers are whole, each named by its place.
            (
                #"{"name": "v", "base": {"name": "other", \#(load)}, "environments": [{"name": "e"}], "grid": {}}"#,
                "base.name: the base takes the sweep's name"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {"maxRetries": [1, 2.5]}}"#,
                "grid.maxRetries[1]: must be a whole number, not 2.5"
            ),
            // The objective: a deadline a user feels, a quantile, compared deadlines each once.
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"deadline": "0s"}}"#,
                "objective.deadline: must be 100ms-1h (a deadline a user feels), not 0s"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"deadline": "0.000001s"}}"#,
                "objective.deadline: must be 100ms-1h (a deadline a user feels), not 0.001ms"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"compare": ["29.9999999s", "30.0000001s"]}}"#,
                "objective.compare[0]: must be a whole number of milliseconds, not 29.9999999 s"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"deadline": "2h"}}"#,
                "objective.deadline: must be 100ms-1h (a deadline a user feels), not 7200s"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"quantile": 0.3}}"#,
                "objective.quantile: must be from 0.5 to 0.9999, not 0.3"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"compare": ["10s", "10s"]}}"#,
                "objective.compare[1]: 10s is given twice"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e"}], "grid": {}, "objective": {"deadlin": "10s"}}"#,
                "deadlin"
            ),
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "instances": 1001}], "grid": {}}"#,
                "environments[0].instances: must be 1-1000"
            ),
            // An environment's own load is checked as every cell's scenario.
            (
                #"{"name": "v", "base": {\#(load)}, "environments": [{"name": "e", "load": {"type": "open", "policyTime": true, "rate": -1, "duration": "5s"}}], "grid": {}}"#,
                "environments[0]: with policy r3-b300ms-m10s-t15s: load.rate"
            ),
        ]
        for (json, expected) in cases {
            do {
                _ = try Self.tune(json)
                Issue.record("accepted: \(json)")
            } catch let error as InputError {
                #expect(error.description.contains(expected), "\(error.description)")
            } catch {
                #expect(String(describing: error).contains(expected), "\(error)")
            }
        }
    }

    @Test("the grid crosses its values, fills the rest from the default, and the default is always swept")
    func grid() throws {
        let tune = try Self.tune(
            #"{"name": "g", "base": {"load": {"type": "closed", "sends": 10}}, "environments": [{"name": "e"}], "grid": {"maxRetries": [0, 5], "timeout": ["5s", "15s"]}}"#
        )
        let labels = tune.policies.map(\.label)
        #expect(
            labels == [
                "r0-b300ms-m10s-t5s", "r0-b300ms-m10s-t15s", "r5-b300ms-m10s-t5s", "r5-b300ms-m10s-t15s",
                "r3-b300ms-m10s-t15s",
            ])
        let scenario = tune.scenario(policy: tune.policies[2], environment: tune.environments[0], seed: 2)
        #expect(scenario.client.maxRetries == 5 && scenario.client.timeout.seconds == 5 && scenario.seed == 3)
        #expect(scenario.probes == [.outcome, .idempotency])
        let odd = PolicyPoint(
            maxRetries: 1, baseDelay: TimeSpan(seconds: 0.009), maxDelay: TimeSpan(seconds: 2.5),
            timeout: TimeSpan(seconds: 0.0125))
        #expect(odd.label == "r1-b9ms-m2.5s-t12.5ms")
        #expect(throws: Never.self) {
            try tune.scenario(policy: odd, environment: tune.environments[0], seed: 0).validate()
        }
    }

    @Test(
        "the committed tune files are valid; each quick sweep keeps an analytic check (a brownout cell) or a metastability map, and two seeds to check the rule's stability"
    )
    func committedFiles() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../tune")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(!names.isEmpty)
        for name in names {
            let tune = try TuneFile.load(file: folder.appendingPathComponent(name).path)
            let quick = tune.quickened()
            #expect(
                quick.environments.contains { $0.brownoutProbability != nil || $0.map != nil }, "\(name)")
            #expect(quick.seeds >= 2, "\(name)")
            #expect(tune.policies.contains(.sdkDefault), "\(name)")
        }
    }
}
