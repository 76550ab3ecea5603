import Foundation
import LoadKit

/// A same-run ratio (`statistic` = `ratio_vs_<baseline>`, higher is better) with the spread of its
/// rounds (`spread_vs_<baseline>`, which `compare` turns into the ratio's tolerance) and, when it has
/// one, the target it must meet.
public struct RatioCheck: Sendable {
    public var group: String
    public var subject: String
    public var baseline: String
    public var ratio: Double
    /// The rounds' robust standard deviation relative to the median (`RatioEstimate.spread`; NaN:
    /// too few rounds).
    public var spread: Double
    public var target: Double?

    public init(group: String, subject: String, baseline: String, ratio: Double, spread: Double = .nan, target: Double?)
    {
        self.group = group
        self.subject = subject
        self.baseline = baseline
        self.ratio = ratio
        self.spread = spread
        self.target = target
    }

    public init(group: String, subject: String, baseline: String, estimate: RatioEstimate, target: Double? = nil) {
        self.init(
            group: group, subject: subject, baseline: baseline, ratio: estimate.value, spread: estimate.spread,
            target: target)
    }

    public var met: Bool { target.map { ratio >= $0 } ?? true }

    public func rows(benchmark: String) -> [SummaryRow] {
        var builder = SummaryBuilder(scenario: benchmark)
        builder.add(group, subject, "ratio_vs_\(baseline)", ratio, "x")
        if !spread.isNaN { builder.add(group, subject, "spread_vs_\(baseline)", spread, "ratio") }
        return builder.rows
    }

    public var line: String {
        if ratio.isNaN { return "n/a    \(group): \(subject) against \(baseline) (not measured in this build)" }
        let noise = spread.isNaN ? "" : String(format: " (spread %.1f%%)", spread * 100)
        guard let target else {
            return String(format: "       %@: %@ is %.2fx %@%@", group, subject, ratio, baseline, noise)
        }
        return String(
            format: "%@ %@: %@ is %.2fx %@%@ (target >= %.3gx)", met ? "MET   " : "MISSED", group, subject, ratio,
            baseline, noise, target)
    }
}

/// A positive control: a workload and its copy made slower by a known factor (`Workload.slowed`),
/// both timed against the same baseline in the same rounds. It shows whether this run's noise
/// would let the gate see a slowdown of that size.
public struct PositiveControl: Sendable {
    public var group: String
    public var subject: String
    public var baseline: String
    /// The slowdown built into the control.
    public var built: Double
    public var real: RatioEstimate
    public var control: RatioEstimate

    public init(group: String, subject: String, baseline: String, built: Double, in result: InterleavedResult) {
        self.group = group
        self.subject = subject
        self.baseline = baseline
        self.built = built
        real = result.ratio(subject, against: baseline)
        control = result.ratio(subject + "_control", against: baseline)
    }

    /// How many times slower the control measured than the real workload.
    public var measured: Double { real.value / control.value }

    /// The smallest slowdown the gate flags with this run's spreads on both sides.
    public var smallestDetectable: Double {
        1 + (RatioGate.tolerance(baselineSpread: real.spread, currentSpread: control.spread) ?? .nan)
    }

    public var visible: Bool { measured > smallestDetectable }

    public func rows(benchmark: String) -> [SummaryRow] {
        var builder = SummaryBuilder(scenario: benchmark)
        let name = subject + "_control"
        builder.add(group, name, "control_slowdown", built, "x")
        builder.add(group, name, "control_measured", measured, "x")
        builder.add(group, name, "smallest_detectable", smallestDetectable, "x")
        return RatioCheck(group: group, subject: name, baseline: baseline, estimate: control).rows(
            benchmark: benchmark) + builder.rows
    }

    public var line: String {
        let verdict =
            visible
            ? "the gate sees it"
            : "WARNING: this run is too noisy for the gate to see its own control; its verdicts are blind to a slowdown of this size"
        return String(
            format: "control %@: %@ done %.2fx measured %.2fx slower; slowdowns from %.2fx are detectable: %@",
            group, subject, built, measured, smallestDetectable, verdict)
    }
}

/// An allocation budget: at most `limit` allocations per operation of `subject`, written as the
/// ratio `limit / allocations` against the baseline `<limit>_allocations` (at least 1: met). Judged
/// on the rows `report` writes, after the allocation pass has filled the counts in.
public struct AllocationTarget: Sendable {
    public var group: String
    public var subject: String
    public var limit: Int

    public init(group: String, subject: String, limit: Int) {
        self.group = group
        self.subject = subject
        self.limit = limit
    }

    /// The check against the counts in `rows` (n/a when they were not counted).
    public func check(in rows: [SummaryRow]) -> RatioCheck {
        let allocations =
            rows.first { $0.probe == group && $0.metric == subject && $0.statistic == "allocs_per_op" }?.value ?? .nan
        return RatioCheck(
            group: group, subject: subject, baseline: "\(limit)_allocations",
            ratio: allocations.isNaN ? .nan : Double(limit) / max(allocations, 1e-9), target: 1)
    }
}

/// Writes rows to `--out` (if given) and prints them with the ratio and control lines. The process
/// that measured them ran on the system allocator, so its allocation counts come from a second pass
/// under jemalloc (`AllocationPass`), whose ratios are written beside these; a pass itself, or a run
/// that was started with jemalloc already preloaded, writes what it measured. Allocation budgets
/// are judged on the counts as written. Returns the rows written.
@discardableResult
public func report(
    benchmark: String, rows: [SummaryRow], checks: [RatioCheck], controls: [PositiveControl] = [],
    allocationTargets: [AllocationTarget] = [], out: String?
) throws -> [SummaryRow] {
    var allRows =
        rows + checks.flatMap { $0.rows(benchmark: benchmark) } + controls.flatMap { $0.rows(benchmark: benchmark) }
    var notes: [String] = []
    if CommandLine.arguments.contains("--\(AllocationPass.flag)") {
        if !Allocations.available { notes.append("allocation pass: jemalloc is not this process's allocator") }
    } else if Allocations.available {
        notes.append(
            "note: jemalloc was already this process's allocator: the timings and ratios above are jemalloc's, not the system allocator's"
        )
    } else {
        switch AllocationPass.run(arguments: Array(CommandLine.arguments.dropFirst())) {
        case .measured(let counted):
            let merged = AllocationPass.merge(timing: allRows, allocation: counted)
            allRows = merged.rows
            notes += merged.shifts
        case .unavailable(let reason):
            notes.append(reason)
        }
    }
    let budgets = allocationTargets.map { $0.check(in: allRows) }
    allRows += budgets.flatMap { $0.rows(benchmark: benchmark) }
    let csv = SummaryCSV.render(allRows, runID: RunID.make())
    if let out { try csv.write(toFile: out, atomically: true, encoding: .utf8) }
    print(csv, terminator: "")
    for note in notes { print(note) }
    for check in checks + budgets { print(check.line) }
    for control in controls { print(control.line) }
    return allRows
}
