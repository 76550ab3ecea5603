import Foundation

/// Which way a metric should move.
public enum Polarity: String, Sendable {
    case higherIsBetter = "higher"
    case lowerIsBetter = "lower"
    /// Not judged (counts of work done, elapsed time, sample sizes).
    case informational = "info"
}

/// Compares two summary CSVs row by row (docs/csv.md): each metric has a polarity and a
/// tolerance; correctness metrics and allocation counts are strict (tolerance 0) unless a
/// per-metric tolerance says otherwise.
public struct Comparison: Sendable {
    public enum Verdict: String, Sendable {
        case unchanged
        case regression
        case improvement
        /// In the baseline, not in the current run.
        case missing
        /// Not measured in one of the runs (no allocation counter): not judged.
        case notAvailable = "n/a"
        case new
    }

    public struct Line: Sendable {
        public var key: String
        public var baseline: Double?
        public var current: Double?
        public var unit: String
        public var change: Double
        public var tolerance: Double
        public var polarity: Polarity
        public var verdict: Verdict
    }

    public var lines: [Line] = []

    public var regressions: [Line] { lines.filter { $0.verdict == .regression || $0.verdict == .missing } }
    public var improvements: [Line] { lines.filter { $0.verdict == .improvement } }

    /// The declared way a metric should move (`MetricPolicies`); undeclared rows are not judged.
    public static func polarity(_ row: SummaryRow) -> Polarity {
        MetricPolicies.policy(row)?.polarity ?? .informational
    }

    /// `pattern` (dot-separated) matches when its components appear consecutively in the row's key.
    static func matches(_ pattern: String, _ fullKey: [String]) -> Bool {
        let parts = pattern.split(separator: ".").map(String.init)
        guard !parts.isEmpty, parts.count <= fullKey.count else { return false }
        return (0...(fullKey.count - parts.count)).contains { Array(fullKey[$0..<($0 + parts.count)]) == parts }
    }

    /// How many times worse `current` is than `baseline` (below 1: better).
    static func worseFactor(baseline: Double, current: Double, polarity: Polarity) -> Double {
        if baseline == current { return 1 }
        let (worse, better) = polarity == .higherIsBetter ? (baseline, current) : (current, baseline)
        if better <= 0 { return worse > better ? .infinity : 1 }
        if worse <= 0 { return 0 }
        return worse / better
    }

    /// Tolerance 0 whatever `--tolerance` says (per-metric tolerances still apply).
    static func isStrict(_ row: SummaryRow) -> Bool {
        MetricPolicies.policy(row)?.strict ?? false
    }

    /// With `strictOnly`, only correctness metrics and allocation counts are judged.
    public init(
        baseline: [SummaryRow], current: [SummaryRow], tolerance: Double,
        perMetric: [(pattern: String, tolerance: Double)], strictOnly: Bool = false
    ) {
        func key(_ row: SummaryRow) -> String { "\(row.scenario).\(row.key)" }
        let currentByKey = Dictionary(current.map { (key($0), $0) }, uniquingKeysWith: { _, last in last })
        let baselineKeys = Set(baseline.map(key))
        for row in baseline {
            let polarity = Self.polarity(row)
            guard polarity != .informational, !strictOnly || Self.isStrict(row) else { continue }
            let components = [row.scenario, row.probe, row.metric, row.statistic]
            var allowed = Self.isStrict(row) ? 0 : tolerance
            if let specific = perMetric.last(where: { Self.matches($0.pattern, components) }) {
                allowed = specific.tolerance
            }
            guard let now = currentByKey[key(row)] else {
                lines.append(
                    Line(
                        key: key(row), baseline: row.value, current: nil, unit: row.unit, change: .nan,
                        tolerance: allowed,
                        polarity: polarity, verdict: .missing))
                continue
            }
            let verdict: Verdict
            var change = 0.0
            if row.value.isNaN || now.value.isNaN {
                if row.value.isNaN {
                    verdict = now.value.isNaN ? .unchanged : .notAvailable
                } else {
                    // It was measured and now is not: a run that stopped measuring a correctness
                    // metric regressed; for the rest it is a warning.
                    let policy = MetricPolicies.policy(row)
                    verdict = policy?.strict == true && policy?.needsExtra == false ? .regression : .notAvailable
                }
            } else {
                if row.value == now.value {
                    change = 0
                } else if row.value == 0 {
                    change = now.value > 0 ? .infinity : -.infinity
                } else {
                    change = (now.value - row.value) / abs(row.value)
                }
                // Judged as a factor, the same in both polarities: tolerance t allows (1 + t)× worse.
                let worse = Self.worseFactor(baseline: row.value, current: now.value, polarity: polarity)
                if worse > 1 + allowed {
                    verdict = .regression
                } else if worse < 1 / (1 + allowed) {
                    verdict = .improvement
                } else {
                    verdict = .unchanged
                }
            }
            lines.append(
                Line(
                    key: key(row), baseline: row.value, current: now.value, unit: row.unit, change: change,
                    tolerance: allowed, polarity: polarity, verdict: verdict))
        }
        for row in current
        where !baselineKeys.contains(key(row)) && Self.polarity(row) != .informational
            && (!strictOnly || Self.isStrict(row))
        {
            // A defect count that appears with a value (an interrupted run, a new failure) regresses.
            let defect = Self.isStrict(row) && Self.polarity(row) == .lowerIsBetter && row.value > 0
            lines.append(
                Line(
                    key: key(row), baseline: nil, current: row.value, unit: row.unit, change: .nan,
                    tolerance: tolerance,
                    polarity: Self.polarity(row), verdict: defect ? .regression : .new))
        }
    }

    /// A Markdown table of every line that is not unchanged, and a summary.
    public func markdown() -> String {
        let judged = lines.filter { $0.verdict != .unchanged }
        var text = ""
        if !judged.isEmpty {
            text += "| metric | baseline | current | change | tolerance | better | verdict |\n"
            text += "|---|---:|---:|---:|---:|---|---|\n"
            for line in judged.sorted(by: { ($0.verdict.rawValue, $0.key) < ($1.verdict.rawValue, $1.key) }) {
                let baseline = line.baseline.map { SummaryCSV.format($0) } ?? "—"
                let current = line.current.map { SummaryCSV.format($0) } ?? "—"
                let change =
                    line.change.isNaN
                    ? "—"
                    : line.change.isInfinite
                        ? (line.change > 0 ? "+∞" : "−∞") : String(format: "%+.1f%%", line.change * 100)
                text +=
                    "| \(line.key) | \(baseline) \(line.unit) | \(current) | \(change) | \(String(format: "%.0f%%", line.tolerance * 100)) | \(line.polarity.rawValue) | \(line.verdict.rawValue) |\n"
            }
            text += "\n"
        }
        let unchanged = lines.count - judged.count
        text +=
            "\(regressions.count) regressions, \(improvements.count) improvements beyond tolerance, \(unchanged) unchanged"
        let unavailable = lines.filter { $0.verdict == .notAvailable }
        if !unavailable.isEmpty {
            text += ", \(unavailable.count) not available in one run"
            let lost = unavailable.filter { $0.baseline.map { !$0.isNaN } ?? false }
            if !lost.isEmpty {
                text += "\nwarning: \(lost.count) metrics were measured in the baseline and are n/a now: "
                text += lost.prefix(5).map(\.key).joined(separator: ", ") + (lost.count > 5 ? ", …" : "")
            }
        }
        return text + "\n"
    }
}
