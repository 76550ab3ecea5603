import FakeFrontmail
import Foundation
import Frontmail

/// What one run of one cell measured: counts from the client's history and the server's ledger
/// (never the SDK's own account), and the run's verdict figures.
package struct RunFigures: Sendable {
    /// Logical sends scheduled (the open loop's dropped ones included: the user saw them fail).
    var sends = 0
    /// Sends started (not dropped).
    var started = 0
    var ok = 0
    /// Send requests the server's ledger holds.
    var serverRequests = 0
    /// Latency of every send that ended, from its intended start, in policy nanoseconds (its
    /// non-empty buckets: a sweep keeps every run's).
    var latency = CompactHistogram()
    /// Latency of every send that ended ok, from its intended start, in policy milliseconds, sorted.
    var okLatencies: [Double] = []
    var duplicates = 0
    var lost = 0
    var peakLoad = Double.nan
    var deadWork = 0
    var recovery = Double.nan
    var metastable: Bool?
    /// Goodput over the baseline's seconds before the trigger, and the sends due in them per
    /// second (the offered load): NaN without a trigger.
    var goodputBefore = Double.nan
    var offeredBefore = Double.nan
    /// Dead work was counted until the queue drained (false), or cut at the drain limit (true);
    /// nil without a capacity model.
    var drainLimited: Bool?
    var interrupted = false

    init() {}

    /// The figures of one measured run. Every load records the server's requests, the idempotency
    /// counts and the time series, so a missing one is an error that names it, never a zero; the
    /// peak load (a capacity model) and the metastability figures (a `metastability` section) are
    /// there only when the cell's scenario has them.
    init(_ measurement: Measurement, timeScale: Double) throws(MissingMetric) {
        let records = measurement.history?.records ?? []
        sends = records.count
        var latency = Histogram()
        defer { self.latency = latency.compacted }
        for record in records {
            switch record.outcome {
            case .dropped: continue
            case .ok: ok += 1
            case .failed, .pending: break
            }
            started += 1
            guard record.ended.isFinite else { continue }
            let seconds = (record.ended - record.intended) / timeScale
            latency.record(seconds, scale: 1e9)
            if case .ok = record.outcome { okLatencies.append(seconds * 1000) }
        }
        okLatencies.sort()
        let metrics = measurement.metrics
        serverRequests = Int(try metrics.required(.loadServerRequests))
        duplicates = Int(try metrics.required(.idempotencyDuplicates))
        lost = Int(try metrics.required(.idempotencyLost))
        peakLoad = metrics[.timeseriesPeakLoad] ?? .nan
        deadWork = Int(try metrics.required(.timeseriesDeadWork))
        recovery = metrics[.metastabilityRecovery] ?? .nan
        metastable = metrics[.metastabilityVerdict].map { $0 != 0 }
        drainLimited = metrics[.timeseriesDrainLimited].map { $0 != 0 }
        if let trigger = metrics[.metastabilityTrigger], let before = metrics[.metastabilityGoodputBefore] {
            // The sends due in the seconds the verdict's baseline averages.
            let window = MetastabilityVerdict.baselineSeconds(trigger: trigger)
            let due = records.filter { window.contains(Int(($0.intended / timeScale).rounded(.down))) }.count
            goodputBefore = before
            offeredBefore = Double(due) / Double(window.count)
        }
        interrupted = measurement.interrupted
    }
}

/// One (policy, environment) cell over its seeds.
package struct TuneCell: Sendable {
    var policy: PolicyPoint
    var environment: TuneEnvironment
    package var runs: [RunFigures] = []
    /// On the Pareto frontier of its environment (success in the deadline, the quantile of the
    /// sends that made it, amplification).
    var pareto = false
    /// What the user tolerates: the objective the cell is judged by.
    var objective = TuneObjective()

    init(policy: PolicyPoint, environment: TuneEnvironment) {
        self.policy = policy
        self.environment = environment
    }

    var sends: Int { runs.reduce(0) { $0 + $1.sends } }
    var started: Int { runs.reduce(0) { $0 + $1.started } }
    var ok: Int { runs.reduce(0) { $0 + $1.ok } }
    var serverRequests: Int { runs.reduce(0) { $0 + $1.serverRequests } }

    /// Sends ending ok per send, pooled over the seeds.
    var successRate: Double { sends == 0 ? .nan : Double(ok) / Double(sends) }

    /// Sends ending ok within the objective's deadline of when they were due, over every seed.
    var okInDeadline: Int {
        let deadline = objective.deadlineMs
        guard deadline.isFinite else { return ok }
        return runs.reduce(0) { $0 + Self.countAtMost(deadline, in: $1.okLatencies) }
    }

    /// The success the user sees: sends ending ok within the deadline per send (the rule's first
    /// objective).
    /// What the environment counts for in the rule (its `weight`, 1 when the file gives none).
    var weight: Double { environment.weight ?? 1 }

    var userSuccess: Double { sends == 0 ? .nan : Double(okInDeadline) / Double(sends) }

    /// Policy ms at the objective's quantile of the sends that ended ok within the deadline, over
    /// every seed (the nearest rank; NaN when none did).
    var okLatency: Double {
        let deadline = objective.deadlineMs
        // Each run's latencies are sorted: the nearest-rank quantile of their union is found by
        // walking down from the largest (a p99 skips 1 % of them), never by sorting the union.
        let sorted = runs.map { $0.okLatencies[..<Self.countAtMost(deadline, in: $0.okLatencies)] }
        var ends = sorted.map(\.endIndex)
        let total = sorted.reduce(0) { $0 + $1.count }
        guard total > 0 else { return .nan }
        let rank = min(total, max(1, Int((objective.quantile * Double(total)).rounded(.up))))
        var above = total - rank
        while true {
            var top = -1
            for index in sorted.indices where ends[index] > sorted[index].startIndex {
                if top < 0 || sorted[index][ends[index] - 1] > sorted[top][ends[top] - 1] { top = index }
            }
            if above == 0 { return sorted[top][ends[top] - 1] }
            ends[top] -= 1
            above -= 1
        }
    }

    /// How many of the sorted `values` are at most `limit`.
    static func countAtMost(_ limit: Double, in values: [Double]) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] <= limit { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A 95 % interval: over the seeds' rates (Student's t) with two seeds or more, Wilson's score
    /// interval on the counts of a single seed.
    var successInterval: (low: Double, high: Double) {
        let rates = runs.filter { $0.sends > 0 }.map { Double($0.ok) / Double($0.sends) }
        if rates.count >= 2 {
            let mean = rates.reduce(0, +) / Double(rates.count)
            let variance = rates.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(rates.count - 1)
            let half = Statistics.studentT975(degrees: rates.count - 1) * (variance / Double(rates.count)).squareRoot()
            return (max(0, mean - half), min(1, mean + half))
        }
        return Statistics.wilson(successes: ok, trials: sends)
    }

    var latency: Histogram {
        var merged = Histogram()
        for run in runs { merged.merge(run.latency) }
        return merged
    }

    /// Policy milliseconds at `quantile` of every ended send's latency.
    func latency(at quantile: Double) -> Double {
        let merged = latency
        return merged.count == 0 ? .nan : merged.value(at: quantile) / 1e6
    }

    /// Server send requests per started send.
    var amplification: Double {
        started == 0 ? .nan : Double(runs.reduce(0) { $0 + $1.serverRequests }) / Double(started)
    }

    var peakLoad: Double { runs.map(\.peakLoad).filter(\.isFinite).max() ?? .nan }
    var duplicates: Int { runs.reduce(0) { $0 + $1.duplicates } }
    var lost: Int { runs.reduce(0) { $0 + $1.lost } }
    var deadWork: Int { runs.reduce(0) { $0 + $1.deadWork } }
    /// The slowest seed's recovery (NaN without a trigger).
    var recovery: Double { runs.map(\.recovery).filter(\.isFinite).max() ?? .nan }
    /// Metastable in any seed (and overloaded in none); nil without a trigger or when overloaded
    /// before it (then there was no level to come back to).
    var metastable: Bool? {
        guard let verdict else { return nil }
        switch verdict {
        case .metastable: return true
        case .recovered: return false
        case .overloaded: return nil
        }
    }

    /// The lowest seed's goodput before the trigger as a share of the load offered then (NaN
    /// without a trigger).
    var goodputBeforeShare: Double {
        runs.map { $0.offeredBefore > 0 ? $0.goodputBefore / $0.offeredBefore : .nan }.filter(\.isFinite).min() ?? .nan
    }

    /// What the metastability verdict can say of the cell (nil without a trigger): overloaded
    /// before the drop when any seed's goodput before the trigger was under 90 % of the load
    /// offered then, otherwise metastable when any seed stayed metastable.
    var verdict: StormVerdict? {
        let verdicts = runs.compactMap(\.metastable)
        guard !verdicts.isEmpty else { return nil }
        if runs.contains(where: { $0.goodputBefore < StormVerdict.servedShare * $0.offeredBefore }) {
            return .overloaded
        }
        return verdicts.contains(true) ? .metastable : .recovered
    }

    /// Whether `self` is at least as good as `other` on every objective of `used` and better on one.
    func dominates(_ other: TuneCell, on used: [Objective]) -> Bool {
        let mine = objectives(used)
        let theirs = other.objectives(used)
        let noWorse = zip(mine, theirs).allSatisfy { $0 <= $1 }
        return noWorse && zip(mine, theirs).contains { $0 < $1 }
    }

    /// Lower is better: failure rate, p99, amplification (an unmeasured figure is the worst).
    private func objectives(_ used: [Objective]) -> [Double] {
        used.map { objective -> Double in
            switch objective {
            case .success: 1 - userSuccess
            case .p99: okLatency
            case .amplification: amplification
            }
        }.map { $0.isFinite ? $0 : .infinity }
    }
}

/// A cell with a metastability trigger, judged: a verdict is only meaningful when the server kept
/// up before the drop.
enum StormVerdict: String, Sendable {
    case recovered
    case metastable
    /// Goodput before the drop under 90 % of the offered load: there was no level to come back
    /// to, so neither "recovered" nor "metastable" says anything.
    case overloaded

    /// The share of the offered load goodput must reach before the trigger for a verdict.
    static let servedShare = 0.9

    /// The map's letter.
    var mark: String {
        switch self {
        case .recovered: "R"
        case .metastable: "M"
        case .overloaded: "O"
        }
    }
}

enum Pareto {
    /// Marks every cell no other cell of its environment dominates, on the objectives that say
    /// something there (`Objective.degenerate`).
    static func mark(_ cells: inout [TuneCell]) {
        let byEnvironment = Dictionary(grouping: cells.indices.filter { !cells[$0].runs.isEmpty }) {
            cells[$0].environment.name
        }
        for index in cells.indices { cells[index].pareto = false }
        for (_, indices) in byEnvironment {
            let dropped = Objective.degenerate(indices.map { cells[$0] })
            let used = Objective.allCases.filter { dropped[$0] == nil }
            for index in indices {
                let cell = cells[index]
                cells[index].pareto = !indices.contains { cells[$0].dominates(cell, on: used) }
            }
        }
    }
}
