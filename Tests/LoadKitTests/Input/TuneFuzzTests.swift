import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Seeded mutations of the committed tune files: each ends as a valid sweep within its limits or
/// as an error naming a field, never a trap; grids made of many values are refused from their
/// counts.
@Suite("input fuzzing: mutated tune files", .onItsOwnThread)
struct TuneFuzzTests {
    static func tuneFiles() throws -> [URL] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../tune")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted().map { folder.appendingPathComponent($0) }
    }

    /// A grid field replaced by many values: distinct, repeated, or alike in their labels.
    static func bigGrid(_ tree: FrontmailValue, _ random: inout InputFuzzTests.Generator) -> FrontmailValue {
        guard case .object(var fields) = tree else { return tree }
        let field = ["maxRetries", "baseDelay", "maxDelay", "timeout", "budget"][random.below(5)]
        let count = 1 + random.below(100)
        let values: [FrontmailValue] = (0..<count).map { index in
            if field == "budget" {
                return random.below(4) == 0
                    ? InputFuzzTests.budgets[random.below(InputFuzzTests.budgets.count)]
                    : .string("\(index % 30).\(index % 10)%")
            }
            switch random.below(3) {
            case 0: return field == "maxRetries" ? .integer(index % 101) : .string("\(index + 1)ms")
            case 1: return field == "maxRetries" ? .integer(3) : .string("300ms")
            default: return field == "maxRetries" ? .integer(index) : .string("\(300 + Double(index) * 1e-5)ms")
            }
        }
        var grid: [String: FrontmailValue] = [:]
        if case .object(let existing) = fields["grid"] { grid = existing }
        grid[field] = .array(values)
        // With listed points the axes are refused; the budget list still crosses them.
        if grid["points"] != nil, field != "budget", random.below(2) == 0 { grid["points"] = nil }
        fields["grid"] = .object(grid)
        return .object(fields)
    }

    /// `clients` (or `quick.clients`) set to a number, a list (in order or not, repeated, out of
    /// range, long) or something else; an environment's `instances` sometimes kept beside it, and
    /// an environment's `weight` sometimes set, in range or not.
    static func scales(_ tree: FrontmailValue, _ random: inout InputFuzzTests.Generator) -> FrontmailValue {
        guard case .object(var fields) = tree else { return tree }
        let counts = [0, 1, 2, 10, 16, 100, 999, 1000, 1001, -1, 5_000_000]
        func count(_ random: inout InputFuzzTests.Generator) -> FrontmailValue {
            random.below(8) == 0 ? .string("16") : .integer(counts[random.below(counts.count)])
        }
        let value: FrontmailValue
        switch random.below(4) {
        case 0: value = count(&random)
        case 1: value = .array((0..<random.below(11)).map { _ in count(&random) })
        case 2:
            // Ascending and distinct: a list the file accepts when it fits the limits.
            var next = 0
            value = .array(
                (0..<1 + random.below(9)).map { _ in
                    next += 1 + random.below(200)
                    return .integer(next)
                })
        default: value = random.below(2) == 0 ? .null : .object(["clients": .integer(2)])
        }
        if random.below(4) == 0, case .object(var quick) = fields["quick"] ?? .object([:]) {
            quick["clients"] = value
            fields["quick"] = .object(quick)
        } else {
            fields["clients"] = value
        }
        if random.below(3) == 0, case .array(var environments) = fields["environments"], !environments.isEmpty,
            case .object(var first) = environments[0]
        {
            first["instances"] = .integer(1 + random.below(20))
            environments[0] = .object(first)
            fields["environments"] = .array(environments)
        }
        if random.below(2) == 0, case .array(var environments) = fields["environments"], !environments.isEmpty {
            let index = random.below(environments.count)
            if case .object(var environment) = environments[index] {
                let weights: [FrontmailValue] = [
                    .integer(0), .integer(-1), .double(0.5), .double(1e6), .double(2e6), .double(1e-7), .string("x"),
                    .integer(10),
                ]
                environment["weight"] = weights[random.below(weights.count)]
                environments[index] = .object(environment)
                fields["environments"] = .array(environments)
            }
        }
        return .object(fields)
    }

    @Test("every mutation is a valid sweep within its limits or an error with a reason")
    func tuneFiles() throws {
        var random = InputFuzzTests.Generator(state: 20_261_203)
        var valid = 0
        var rejected = 0
        let files = try Self.tuneFiles()
        #expect(!files.isEmpty)
        let rounds = 400
        for file in files {
            let original = try Data(contentsOf: file)
            let tree = try JSONReader.parse(original)
            for round in 0..<rounds {
                let data: Data
                switch round % 10 {
                case 9: data = original.prefix(random.below(original.count))
                case 8: data = InputFuzzTests.bytes(Self.bigGrid(tree, &random))
                case 7: data = InputFuzzTests.bytes(Self.scales(tree, &random))
                default:
                    var mutated = tree
                    for _ in 0...random.below(3) { mutated = InputFuzzTests.mutate(mutated, &random) }
                    data = InputFuzzTests.bytes(mutated)
                }
                do {
                    var tune = try InputError.decode(TuneFile.self, from: data)
                    tune.base.name = tune.name
                    try tune.validate()
                    valid += 1
                    for sweep in [tune, tune.quickened()] {
                        let policies = sweep.policies
                        #expect(policies.count == sweep.policyCount)
                        let places = sweep.scaledEnvironments
                        #expect(policies.count * places.count <= TuneFile.maxCells)
                        #expect(policies.count * places.count * sweep.seeds <= TuneFile.maxRuns)
                        // Every scale is in range and every place has a name of its own.
                        #expect(places.allSatisfy { TuneFile.clientCounts.contains(sweep.scale(of: $0)) })
                        #expect(Set(places.map(\.name)).count == places.count)
                        #expect(places.allSatisfy { $0.weight.map(TuneEnvironment.weights.contains) ?? true })
                        // Every cell has a name of its own.
                        #expect(Set(policies.map(\.label)).count == policies.count)
                    }
                } catch {
                    rejected += 1
                    #expect(!error.reason.isEmpty)
                }
            }
        }
        #expect(valid + rejected == files.count * rounds)
        #expect(valid > 20 && rejected > 100, "valid \(valid), rejected \(rejected)")
    }
}
