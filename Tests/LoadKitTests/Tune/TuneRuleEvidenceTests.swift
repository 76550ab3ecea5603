import Foundation
import Testing

@testable import LoadKit

/// The parts of the rule a sweep's reader leans on most and no other test pinned: a lost send
/// disqualifies a policy whatever its success, the bootstrap resamples the seeds (its share is the
/// probability the cells imply), leave-one-seed-out names the seed that flips the winner, and
/// each environment's regret is measured against that environment's own cells.
@Suite("tune: lost sends, the bootstrap share, leave-one-out and regret over several environments")
struct TuneRuleEvidenceTests {
    typealias Make = TuneRuleTests

    @Test("a policy with a lost send is never a candidate, however high its success")
    func lostSendDisqualifies() {
        let e = Make.environment("e")
        let f = Make.environment("f")
        var lossy = Make.cell(Make.policy(5), e, ok: [10_000, 10_000, 10_000])
        lossy.runs[1].lost = 1
        let cells = [
            lossy, Make.cell(Make.policy(3), e, ok: [9_800, 9_800, 9_800]),
            Make.cell(Make.policy(5), f, ok: [10_000, 10_000, 10_000]),
            Make.cell(Make.policy(3), f, ok: [10_000, 10_000, 10_000]),
        ]
        #expect(Set(TuneRule.candidates(cells).keys) == [Make.policy(3)])
        let decision = TuneRule.decide(cells)
        #expect(decision.outcome.winner == Make.policy(3))
        // Without the loss the lossy policy wins: the loss alone decided.
        lossy.runs[1].lost = 0
        #expect(TuneRule.decide([lossy] + cells.dropFirst()).outcome.winner == Make.policy(5))
    }

    /// In `e`, A is ahead on seeds 0 and 1 and far behind on seed 2; B is steady. Pooled, A wins a
    /// resample exactly when seed 2 is not drawn: (2/3)³ = 8/27 of resamples.
    static func splitCells() -> [TuneCell] {
        let e = Make.environment("e")
        let f = Make.environment("f")
        return [
            Make.cell(Make.policy(5), e, ok: [9_900, 9_900, 9_000]),
            Make.cell(Make.policy(3), e, ok: [9_850, 9_850, 9_850]),
            Make.cell(Make.policy(5), f, ok: [10_000, 10_000, 10_000]),
            Make.cell(Make.policy(3), f, ok: [10_000, 10_000, 10_000]),
        ]
    }

    @Test("the bootstrap's share is the chance the cells imply; leave-one-out names the seed that flips it")
    func bootstrapAndLeaveOneOut() {
        let decision = TuneRule.decide(Self.splitCells())
        let (a, b) = (Make.policy(5), Make.policy(3))
        #expect(decision.outcome.winner == b)
        // Every resample is decided by whether seed 2 was drawn: B wins 19/27 of them (0.704); with
        // 200 resamples the share lies within 4 standard errors (0.13) of it, a resampler that draws
        // one seed every time gives 0 or 1.
        let stability = decision.stability
        #expect(stability.resamples == TuneRule.resamples)
        #expect(abs(stability.share - 19.0 / 27) <= 4 * (19.0 / 27 * 8 / 27 / 200).squareRoot(), "\(stability.share)")
        #expect(stability.agreeing + (stability.rivals[a] ?? 0) - 1 == stability.resamples)
        #expect(stability.leaveOneOut.map(\.seed) == [2])
        #expect(stability.leaveOneOut.first?.winner == a)
        #expect(!stability.stable && decision.recommended == nil)
    }

    @Test("each environment's regret is against its own best and its own recommended cell")
    func regretPerEnvironment() {
        let e = Make.environment("e")
        let f = Make.environment("f")
        let g = Make.environment("g")
        let (mine, five, seven) = (Make.policy(3), Make.policy(5), Make.policy(7))
        let cells = [
            Make.cell(mine, e, ok: [9_500], requests: 11_000), Make.cell(five, e, ok: [9_900], requests: 12_000),
            Make.cell(seven, e, ok: [9_700], requests: 13_000),
            Make.cell(mine, f, ok: [9_000], requests: 11_000), Make.cell(five, f, ok: [9_100], requests: 12_000),
            Make.cell(seven, f, ok: [9_800], requests: 14_000),
            Make.cell(mine, g, ok: [10_000], requests: 10_000), Make.cell(five, g, ok: [10_000], requests: 10_500),
            Make.cell(seven, g, ok: [10_000], requests: 10_200),
        ]
        let rows = Regret.table(cells, defaultPolicy: mine, recommended: five)
        let best = Dictionary(uniqueKeysWithValues: rows.filter { $0.against == .best }.map { ($0.environment, $0) })
        let recommended = Dictionary(
            uniqueKeysWithValues: rows.filter { $0.against == .recommended }.map { ($0.environment, $0) })
        #expect(Set(best.keys) == ["e", "f", "g"] && Set(recommended.keys) == ["e", "f", "g"])
        for row in rows {
            #expect(
                row.other.environment.name == row.environment && row.defaultCell.environment.name == row.environment)
        }
        // Hand-computed: each environment's best (success first, then the lowest load) against the default.
        #expect(best["e"]?.other.policy == five && abs((best["e"]?.sendsLostPer10k ?? 0) - 400) < 1e-6)
        #expect(best["f"]?.other.policy == seven && abs((best["f"]?.sendsLostPer10k ?? 0) - 800) < 1e-6)
        #expect(best["g"]?.other.policy == mine && best["g"]?.sendsLostPer10k == 0)
        #expect(abs((recommended["f"]?.sendsLostPer10k ?? 0) - 100) < 1e-6)
        #expect(abs((recommended["g"]?.extraServerLoadPercent ?? 0) - (10_000.0 / 10_500 - 1) * 100) < 1e-9)
    }
}
