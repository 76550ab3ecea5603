import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Thousands of seeded mutations of every committed scenario (and of each scenario's fault plan):
/// each ends as a valid scenario or as an error naming a field, never a trap, and every valid
/// survivor's planned work is bounded.
@Suite("input fuzzing: mutated scenario and plan files", .onItsOwnThread)
struct InputFuzzTests {
    /// A small deterministic generator (SplitMix64).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
    }

    static let extremes: [FrontmailValue] = [
        .integer(0), .integer(-1), .integer(Int.max), .integer(Int.min), .double(1e300), .double(-1e300),
        .double(1e-300), .double(2.5), .string("NaN"), .string("inf"), .string("-1s"), .string("1e300s"),
        .string(""), .string("\r\nX-Injected: 1"), .bool(true), .null, .array([]), .object([:]),
    ]

    /// One mutation somewhere in the tree: delete a field, swap a value's type, put an extreme in.
    static func mutate(_ value: FrontmailValue, _ random: inout Generator, depth: Int = 0) -> FrontmailValue {
        let here = random.below(4) == 0 || depth > 6
        switch value {
        case .object(var fields) where !fields.isEmpty:
            let keys = fields.keys.sorted()
            let key = keys[random.below(keys.count)]
            if here {
                if random.below(3) == 0 {
                    fields[key] = nil
                } else {
                    fields[key] = extremes[random.below(extremes.count)]
                }
            } else {
                fields[key] = mutate(fields[key]!, &random, depth: depth + 1)
            }
            return .object(fields)
        case .array(var items) where !items.isEmpty:
            let index = random.below(items.count)
            if here {
                items[index] = extremes[random.below(extremes.count)]
            } else {
                items[index] = mutate(items[index], &random, depth: depth + 1)
            }
            return .array(items)
        default:
            return extremes[random.below(extremes.count)]
        }
    }

    static let scenarioFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios")

    static func scenarioFiles() throws -> [URL] {
        let folder = scenarioFolder
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
            .map { folder.appendingPathComponent($0) }
    }

    /// Budgets as a file may spell them: valid ones and near misses.
    static let budgets: [FrontmailValue] = [
        "none", "quota", "20%", "12.5%", "1000%", "0.1%", "0%", "1000.1%", "12.55%", "%", ".5%", "5.%", "-5%",
        "20", "20 %", "Quota", "١٠%", "99999999999999999999%", "1e3%", "quota:unsent-charged", "20%:unsent-charged",
        "none:unsent-charged", ":unsent-charged", "quota:unsent", "quota:unsent-charged:unsent-charged",
    ].map { .string($0) }

    static func bytes(_ value: FrontmailValue) -> Data {
        var writer = JSONWriter()
        writer.writeLenient(value)
        return Data(writer.bytes)
    }

    @Test("every mutation is a valid scenario or an error with a reason; survivors have bounded work")
    func scenarios() throws {
        var random = Generator(state: 20_261_201)
        var valid = 0
        var rejected = 0
        let files = try Self.scenarioFiles()
        #expect(files.count >= 20)
        for file in files {
            let original = try Data(contentsOf: file)
            let tree = try JSONReader.parse(original)
            for round in 0..<150 {
                var data: Data
                if round % 10 == 9 {
                    data = original.prefix(random.below(original.count))  // truncated
                } else {
                    var mutated = tree
                    // The clock is in no committed file: add it, valid or not, to a third of the rounds.
                    if case .object(var fields) = mutated, random.below(3) == 0 {
                        let clocks: [FrontmailValue] = [.string("virtual"), .string("real"), .string("sundial")]
                        fields["clock"] =
                            random.below(2) == 0
                            ? clocks[random.below(3)] : Self.extremes[random.below(Self.extremes.count)]
                        mutated = .object(fields)
                    }
                    // The budget likewise: a valid one, a near miss or an extreme, in a fifth of the rounds.
                    if case .object(var fields) = mutated, random.below(5) == 0 {
                        var client: [String: FrontmailValue] = [:]
                        if case .object(let existing) = fields["client"] { client = existing }
                        client["budget"] =
                            random.below(2) == 0
                            ? Self.budgets[random.below(Self.budgets.count)]
                            : Self.extremes[random.below(Self.extremes.count)]
                        fields["client"] = .object(client)
                        mutated = .object(fields)
                    }
                    for _ in 0...random.below(3) { mutated = Self.mutate(mutated, &random) }
                    data = Self.bytes(mutated)
                }
                do {
                    var scenario = try InputError.decode(Scenario.self, from: data)
                    try scenario.validate()
                    scenario = scenario.quickened()
                    valid += 1
                    #expect(scenario.worstSendRunSeconds <= scenario.plannedWorkLimit || scenario.cancellation != nil)
                    #expect((scenario.load.sends ?? LoadSettings.maxSends) <= LoadSettings.maxSends)
                    Self.exercise(scenario)
                    if let wall = scenario.wallBudget?.seconds { #expect(wall > 0 && wall <= 86_400) }
                    if let budget = scenario.client.budget.budget {
                        #expect(budget.retryCost >= 0 && budget.capacity >= 0 && budget.successReward >= 0)
                        #expect(BudgetSetting.parse(scenario.client.budget.text) == scenario.client.budget)
                    }
                } catch {
                    rejected += 1
                    #expect(!error.reason.isEmpty)
                }
            }
        }
        #expect(valid + rejected == files.count * 150)
        #expect(valid > 100 && rejected > 1000, "valid \(valid), rejected \(rejected)")
    }

    /// What a run would do first with a valid scenario, where the old traps were: the core and its
    /// capacity model, every fixed answer's headers (Retry-After dates), the histogram of latencies.
    static func exercise(_ scenario: Scenario) {
        let core = FakeFrontmailCore(config: scenario.server, plan: scenario.scaledPlan, seed: scenario.seed)
        for rule in scenario.scaledPlan.rules where !rule.action.processes {
            if case .respond(let response, _) = FaultEngine.fixedAnswer(rule.action) {
                #expect(response.headers.allSatisfy { !$0.value.contains("\r") && !$0.value.contains("\n") })
            }
        }
        _ = core.faults.steps(
            for: FaultEngine.Facts(endpoint: .send, attempt: 1, identity: 1, elapsed: 0, headers: [:]))
        var histogram = Histogram()
        histogram.record(scenario.worstSendSeconds / scenario.timeScale, scale: 1e9)
    }

    @Test("every mutation of a fault plan is a plan or an error with a field")
    func plans() throws {
        var random = Generator(state: 7)
        var checked = 0
        for file in try Self.scenarioFiles() {
            guard case .object(let fields) = try JSONReader.parse(try Data(contentsOf: file)), let plan = fields["plan"]
            else { continue }
            for _ in 0..<200 {
                var mutated = plan
                for _ in 0...random.below(3) { mutated = Self.mutate(mutated, &random) }
                do {
                    let decoded = try FaultPlan.decode(Self.bytes(mutated))
                    // A valid plan only answers with header values that cannot split a response.
                    for rule in decoded.rules {
                        for value in (rule.action.headers ?? [:]).values { #expect(!value.contains("\r")) }
                    }
                } catch {
                    #expect(!error.reason.isEmpty)
                }
                checked += 1
            }
        }
        #expect(checked >= 2000)
    }
}
