import Foundation
import Testing

@testable import LoadKit

/// The Pareto frontier against its definition, on random cell sets: a cell is on the frontier
/// exactly when no other cell of its environment is at least as good on every objective that says
/// something there and better on one. Cells here tie often (few distinct values), and some are
/// dominated only through amplification, the objective a frontier that forgot it would miss.
@Suite("tune: the Pareto frontier against a brute-force definition")
struct ParetoPropertyTests {
    struct Generator {
        var state: UInt64
        mutating func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Failure rate, p99 and amplification of a cell, lower is better, read from its raw figures.
    static func vector(_ cell: TuneCell) -> [Double] {
        let sends = Double(cell.runs.reduce(0) { $0 + $1.sends })
        let ok = Double(cell.runs.reduce(0) { $0 + $1.ok })
        let requests = Double(cell.runs.reduce(0) { $0 + $1.serverRequests })
        let started = Double(cell.runs.reduce(0) { $0 + $1.started })
        return [1 - ok / sends, cell.latency(at: 0.99), requests / started]
    }

    static func frontier(_ cells: [TuneCell], used: [Objective]) -> [Bool] {
        let positions = used.map { objective -> Int in
            switch objective {
            case .success: 0
            case .p99: 1
            case .amplification: 2
            }
        }
        let vectors = cells.map { cell in
            let all = vector(cell)
            return positions.map { all[$0] }
        }
        return vectors.indices.map { index in
            !vectors.indices.contains { other in
                other != index && zip(vectors[other], vectors[index]).allSatisfy { $0 <= $1 }
                    && zip(vectors[other], vectors[index]).contains { $0 < $1 }
            }
        }
    }

    @Test("on 120 random environments the marked frontier is the defined one")
    func randomSets() {
        var random = Generator(state: 20_261_203)
        let environment = TuneRuleTests.environment("e")
        var onlyByAmplification = 0
        for _ in 0..<120 {
            let count = 2 + random.below(7)
            var cells = (0..<count).map { index -> TuneCell in
                let ok = 9_000 + 250 * random.below(4)
                return TuneRuleTests.cell(
                    TuneRuleTests.policy(index), environment, ok: [ok], requests: ok + 500 * (1 + random.below(4)),
                    latencyMs: [50, 100, 200][random.below(3)])
            }
            let used = Objective.allCases.filter { Objective.degenerate(cells)[$0] == nil }
            let expected = Self.frontier(cells, used: used)
            Pareto.mark(&cells)
            #expect(cells.map(\.pareto) == expected)
            // How often amplification alone decides: the frontier on success and p99 only differs.
            if used.contains(.amplification),
                Self.frontier(cells, used: used.filter { $0 != .amplification }) != expected
            {
                onlyByAmplification += 1
            }
        }
        #expect(onlyByAmplification > 10, "sets where amplification changes the frontier: \(onlyByAmplification)")
    }

    @Test("a cell as good on success and p99 but with more requests per send is not on the frontier")
    func amplificationDominates() {
        let environment = TuneRuleTests.environment("e")
        var cells = [
            TuneRuleTests.cell(TuneRuleTests.policy(1), environment, ok: [9_500], requests: 10_500, latencyMs: 100),
            TuneRuleTests.cell(TuneRuleTests.policy(2), environment, ok: [9_500], requests: 12_000, latencyMs: 100),
            TuneRuleTests.cell(TuneRuleTests.policy(3), environment, ok: [9_900], requests: 13_000, latencyMs: 200),
        ]
        Pareto.mark(&cells)
        #expect(cells.map(\.pareto) == [true, false, true])
    }
}
