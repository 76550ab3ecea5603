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

    /// Metrics whose tolerance is 0 whatever `--tolerance` says (per-metric tolerances still apply).
    public static let strictMetrics: Set<String> = [
        "duplicates", "lost", "unexpected", "fail_with_effect", "message_id_mismatches", "key_changes", "body_changes",
        "key_collisions", "defects", "attempts_after_cancel", "live_requests_after", "over_limit_retried",
        "retry_after_mismatches", "early_retries",
    ]
    public static let strictStatistics: Set<String> = ["allocs_per_op", "alloc_bytes_per_op"]

    public static func polarity(_ row: SummaryRow) -> Polarity {
        if strictMetrics.contains(row.metric) || strictStatistics.contains(row.statistic) { return .lowerIsBetter }
        if row.statistic.hasPrefix("ratio_vs_") { return .higherIsBetter }
        if ["ops_per_s", "mb_per_s"].contains(row.statistic) { return .higherIsBetter }
        if ["throughput", "success_rate"].contains(row.metric) { return .higherIsBetter }
        if ["p50_us", "p99_us"].contains(row.statistic) { return .lowerIsBetter }
        let histogramStatistics: Set<String> = ["mean", "p50", "p90", "p99", "p99.9", "max"]
        if ["latency", "cancel_to_error", "cancel_to_server_close", "overshoot", "attempts_per_send"].contains(
            row.metric)
            && histogramStatistics.contains(row.statistic)
        {
            return .lowerIsBetter
        }
        if row.metric == "amplification" { return .lowerIsBetter }
        return .informational
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

    static func isStrict(_ row: SummaryRow) -> Bool {
        strictMetrics.contains(row.metric) || strictStatistics.contains(row.statistic)
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
            var allowed =
                Self.strictMetrics.contains(row.metric) || Self.strictStatistics.contains(row.statistic) ? 0 : tolerance
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
                verdict = row.value.isNaN && now.value.isNaN ? .unchanged : .notAvailable
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
            lines.append(
                Line(
                    key: key(row), baseline: nil, current: row.value, unit: row.unit, change: .nan,
                    tolerance: tolerance,
                    polarity: Self.polarity(row), verdict: .new))
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
        let unavailable = lines.filter { $0.verdict == .notAvailable }.count
        if unavailable > 0 { text += ", \(unavailable) not available in one run" }
        return text + "\n"
    }
}
