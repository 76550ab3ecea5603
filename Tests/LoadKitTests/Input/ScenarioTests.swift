import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// Assertion parsing and scenario validation: every bad input names its field and the reason.
@Suite("scenarios and assertions: parsing and validation")
struct ScenarioTests {
    static func reason(_ json: String) -> String? {
        do {
            _ = try makeScenario(json)
            return nil
        } catch let error as InputError {
            return error.description
        } catch {
            return InputError.from(error).description
        }
    }

    @Test("NAME OP VALUE with a number or another metric")
    func parsing() throws {
        let number = try Assertion(parsing: "send.success_rate >= 0.99")
        #expect(number.name == "send.success_rate")
        #expect(number.op == .greaterOrEqual)
        #expect(number.value == .number(0.99))
        let metric = try Assertion(parsing: "jitter.ks_d  <  critical")
        #expect(metric.value == .metric("jitter.ks_critical"))
        let other = try Assertion(parsing: "jitter.ks_d.attempt2 < jitter.ks_critical_001.attempt2")
        #expect(other.value == .metric("jitter.ks_critical_001.attempt2"))
        for bad in ["send.ok", "send.ok => 1", "send.ok == 1 extra", ""] {
            #expect(throws: InputError.self, "\(bad)") { try Assertion(parsing: bad) }
        }
    }

    @Test("evaluation: missing counts are 0, anything else missing fails; NaN never passes")
    func evaluation() throws {
        let errors = try Assertion(parsing: "send.errors.timeout == 0")
        #expect(errors.evaluate([:]).passed)
        let rate = try Assertion(parsing: "send.success_rate >= 0.5")
        #expect(!rate.evaluate([:]).passed)
        #expect(!rate.evaluate(["send.success_rate": .nan]).passed)
        #expect(rate.evaluate(["send.success_rate": 0.5]).passed)
        let relative = try Assertion(parsing: "jitter.ks_d < jitter.ks_critical")
        let outcome = relative.evaluate(["jitter.ks_d": 0.1, "jitter.ks_critical": 0.05])
        #expect(!outcome.passed && outcome.actual == 0.1 && outcome.expected == 0.05)
    }

    @Test("the catalog knows who produces each metric")
    func catalog() {
        #expect(MetricCatalog.source(of: "send.errors.anything") == .probe(.outcome))
        #expect(MetricCatalog.source(of: "cancellation.inFlight.load.p99") == .cancellation)
        #expect(MetricCatalog.source(of: "jitter.ks_d.attempt3") == .probe(.jitter))
        #expect(MetricCatalog.source(of: "jitter.ks_d.attemptX") == nil)
        #expect(MetricCatalog.source(of: "idempotency.duplicates") == .probe(.idempotency))
        #expect(MetricCatalog.source(of: "no.such.metric") == nil)
    }

    static let load = #""load": {"type": "closed", "concurrency": 1, "sends": 1}"#

    @Test(
        "bad scenarios name the field",
        arguments: [
            (
                #"{"name": "x", \#(load), "assertions": ["nope.metric == 0"]}"#,
                "assertions[0]: unknown metric 'nope.metric'"
            ),
            (
                #"{"name": "x", \#(load), "probes": ["outcome"], "assertions": ["jitter.ks_d < critical"]}"#,
                "assertions[0]: 'jitter.ks_d' needs the jitter probe"
            ),
            (
                #"{"name": "x", \#(load), "assertions": ["cancellation.inFlight.idle.p99 <= 1"]}"#,
                "assertions[0]: 'cancellation.inFlight.idle.p99' needs a cancellation section"
            ),
            (#"{"name": "x", \#(load), "probes": ["cancellation"]}"#, "probes[0]: unknown probe 'cancellation'"),
            (
                #"{"name": "x", "cancellation": {}, "probes": ["outcome"]}"#,
                "probes: a scenario with a cancellation section is an experiment of its own"
            ),
            (#"{"name": "x", "cancellation": {"samples": 0}}"#, "cancellation.samples: must be 1-1000000"),
            (#"{"name": "x", "cancellation": {"phases": []}}"#, "cancellation.phases: name at least one phase"),
            (#"{"name": "x", "load": {"type": "closed", "concurrency": 1}}"#, "load: a closed load needs sends"),
            (#"{"name": "x", "load": {"type": "open", "rate": 10}}"#, "load.duration: an open load needs a duration"),
            (#"{"name": "a b", \#(load)}"#, "name: must be letters"),
            (#"{"name": "x", \#(load), "timeScale": 0}"#, "timeScale: must be 0.0001-100"),
            (#"{"name": "x", \#(load), "client": {"maxRetries": 101}}"#, "client.maxRetries: must be 0-100"),
            (#"{"name": "x", \#(load), "client": {"budget": "20"}}"#, "client.budget: '20' is not a budget"),
            (#"{"name": "x", \#(load), "client": {"budget": "1000.1%"}}"#, "client.budget: '1000.1%' is not a budget"),
            (#"{"name": "x", \#(load), "client": {"budget": 0.2}}"#, "client.budget"),
            (
                #"{"name": "x", \#(load), "client": {"budget": "none:unsent-charged"}}"#,
                "client.budget: 'none:unsent-charged' is not a budget"
            ),
            (
                #"{"name": "x", \#(load), "client": {"budget": "quota:unsent-charged:unsent-charged"}}"#,
                "client.budget: 'quota:unsent-charged:unsent-charged' is not a budget"
            ),
            (#"{"name": "x", \#(load), "lod": {}}"#, "lod: unknown field"),
            (#"{"name": "x", \#(load), "wallBudget": 0}"#, "wallBudget: must be more than 0 to 86400 s"),
            (#"{"name": "x", \#(load), "wallBudget": "-5s"}"#, "wallBudget"),
            (#"{"name": "x", \#(load), "wallBudget": "2d"}"#, "wallBudget"),
            (#"{"name": "x", \#(load), "wallBudget": 1e300}"#, "wallBudget: must be more than 0 to 86400 s"),
            (#"{"name": "x", \#(load), "quick": {"wallBudget": 0}}"#, "quick.wallBudget: must be more than 0"),
        ])
    func badScenario(json: String, expected: String) {
        let reason = Self.reason(json)
        #expect(reason?.hasPrefix(expected) == true, "got \(reason ?? "no error")")
    }

    @Test("a UTF-8 byte-order mark before the JSON is accepted; one inside it, or a lone one, is not")
    func byteOrderMark() throws {
        let json = Data(#"{"name": "bom", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.utf8)
        let scenario = try Scenario.load(data: Data([0xEF, 0xBB, 0xBF]) + json, file: "bom.json")
        #expect(scenario.name == "bom")
        #expect(throws: InputFileError.self) { try Scenario.load(data: Data([0xEF, 0xBB, 0xBF]), file: "b.json") }
        #expect(throws: InputFileError.self) {
            try Scenario.load(data: Data("{".utf8) + Data([0xEF, 0xBB, 0xBF]) + json.dropFirst(), file: "b.json")
        }
    }

    @Test("a cancellation section makes the scenario that experiment, with no probes")
    func experiments() throws {
        let cancellation = try makeScenario(#"{"name": "c", "cancellation": {"samples": 5}}"#)
        guard case .cancellation(let settings) = cancellation.experiment else {
            Issue.record("not a cancellation experiment")
            return
        }
        #expect(settings.samples == 5)
        #expect(cancellation.probes.isEmpty)
        let load = try makeScenario(#"{"name": "l", \#(Self.load)}"#)
        #expect(load.experiment == .load)
        #expect(load.probes == [.jitter, .idempotency, .outcome])
    }

    @Test("--quick: the quick overrides, or a tenth of the load")
    func quickened() throws {
        let plain = try makeScenario(#"{"name": "q", "load": {"type": "closed", "concurrency": 8, "sends": 1000}}"#)
        #expect(plain.quickened().load.sends == 100)
        let overridden = try makeScenario(
            #"{"name": "q", "load": {"type": "closed", "concurrency": 8, "sends": 1000}, "quick": {"sends": 7, "assertions": ["send.ok >= 1"]}}"#
        )
        #expect(overridden.quickened().load.sends == 7)
        #expect(overridden.quickened().assertions.map(\.text) == ["send.ok >= 1"])
        let budgeted = try makeScenario(
            #"{"name": "q", \#(Self.load), "wallBudget": "30s", "quick": {"wallBudget": 4}}"#)
        #expect(budgeted.wallBudget?.seconds == 30)
        #expect(budgeted.quickened().wallBudget?.seconds == 4)
    }

    @Test("every standard scenario states its wall budget, and the budgets add up to the suite's 3 minutes")
    func standardBudgets() throws {
        let scenarios = try ScenarioLoader.load([InputFuzzTests.scenarioFolder.path])
        #expect(scenarios.count >= 20)
        let missing = scenarios.filter { $0.wallBudget == nil }.map(\.name)
        #expect(missing.isEmpty, "no wallBudget: \(missing)")
        let total = scenarios.compactMap { $0.wallBudget?.seconds }.reduce(0, +)
        #expect(total <= 180, "the budgets add up to \(total) s")
    }

    @Test("the loader reads folders in name order and refuses two scenarios of one name")
    func loader() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try #"{"name": "b", \#(Self.load)}"#.write(
            to: folder.appendingPathComponent("2.json"), atomically: true, encoding: .utf8)
        try #"{"name": "a", \#(Self.load)}"#.write(
            to: folder.appendingPathComponent("1.json"), atomically: true, encoding: .utf8)
        try "not json".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        #expect(try ScenarioLoader.load([folder.path]).map(\.name) == ["a", "b"])
        let copy = folder.appendingPathComponent("3.json")
        try #"{"name": "a", \#(Self.load)}"#.write(to: copy, atomically: true, encoding: .utf8)
        #expect {
            try ScenarioLoader.load([folder.path])
        } throws: { error in
            (error as? InputFileError)?.description
                == "\(copy.path): name: 'a' is also the name in \(folder.path)/1.json"
        }
        #expect(throws: ScenarioLoader.NotFound.self) { try ScenarioLoader.load([folder.path + "/none"]) }
    }
}
