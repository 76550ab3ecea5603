import Foundation

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
        /// An absolute benchmark timing beyond the gross tolerance: printed, not a failure (the
        /// same-run ratios are what the gate judges).
        case warning
        /// A positive control the gate would not have flagged: the gate cannot see the slowdown it
        /// exists to catch, which fails the comparison.
        case blind
        /// A same-run ratio whose reference workload (code this project does not change:
        /// `JSONEncoder`, the canned reference client) ran more than `machineTolerance` faster or
        /// slower than in the baseline: the runs are from machines too unlike for their ratios to
        /// compare within the measured spreads. Printed; judged only for a change past
        /// `crossMachineTolerance` (then a regression); allocation counts and correctness still are.
        case otherMachine = "other machine"
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
        /// For a same-run ratio gated by measured noise: the spreads of the baseline and the current
        /// run (nil when a run did not measure one).
        public var spreads: (baseline: Double?, current: Double?)? = nil
        /// For a same-run ratio: its reference workload's speed now, as a multiple of the baseline's
        /// (nil when either run did not record it).
        public var referenceSpeed: Double? = nil

        /// A same-run ratio whose reference workload ran more than `machineTolerance` away from the
        /// baseline's speed.
        public var fromAnotherMachine: Bool {
            referenceSpeed.map { max($0, 1 / $0) > 1 + Comparison.machineTolerance } ?? false
        }
    }

    /// A positive control: a copy of a workload made slower by a known factor inside the benchmark,
    /// compared with the baseline's figure for the real workload under that workload's tolerance.
    public struct Control: Sendable {
        /// The control's ratio row (`…_control.ratio_vs_…`) and the real workload's.
        public var key: String
        public var subjectKey: String
        /// The slowdown built into the control (its `control_slowdown` row), when written.
        public var built: Double?
        /// How many times worse the control is than the baseline's real workload.
        public var measured: Double
        public var tolerance: Double
        public var flagged: Bool { measured > 1 + tolerance }
    }

    /// The absolute benchmark timings' tolerance unless a per-metric one is given: only gross
    /// changes warn (2×).
    public static let grossTolerance = 1.0

    /// How far (as a factor) a reference workload's speed may move from the baseline's before the
    /// runs count as from different machines. Between processes on one machine it moved a few
    /// percent; between machines of one kind, from 2 % to 3x.
    public static let machineTolerance = 0.25

    /// How much worse a same-run ratio may be on another machine before it is a regression all the
    /// same. With the reference workloads at 0.30-0.47x the baseline's speed, unchanged code's
    /// ratios moved by at most 23 % (two CI runs, nine ratios each); 50 % is twice that, and the
    /// 3.1x a batch sized from one cold call once cost the send path is far past it.
    public static let crossMachineTolerance = 0.5

    public var lines: [Line] = []
    public var controls: [Control] = []

    public var regressions: [Line] {
        lines.filter { $0.verdict == .regression || $0.verdict == .missing || $0.verdict == .blind }
    }
    public var warnings: [Line] { lines.filter { $0.verdict == .warning } }
    /// Same-run ratios whose tolerance came from measured noise.
    public var ratioGates: [Line] { lines.filter { $0.spreads != nil } }
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

    /// The positive control of subject S is the subject `S_control` of the same group.
    static let controlSuffix = "_control"

    static func isControl(_ row: SummaryRow) -> Bool {
        row.metric.hasSuffix(controlSuffix) && row.statistic.hasPrefix("ratio_vs_")
    }

    /// The key of the spread row beside a same-run ratio (`ratio_vs_X` → `spread_vs_X`).
    static func spreadKey(of row: SummaryRow) -> String? {
        referenceName(of: row).map { "\(row.scenario).\(row.probe).\(row.metric).spread_vs_\($0)" }
    }

    /// The workload a same-run ratio is measured against (`ratio_vs_R` → R); nil for other rows.
    static func referenceName(of row: SummaryRow) -> Substring? {
        row.statistic.hasPrefix("ratio_vs_") ? row.statistic.dropFirst("ratio_vs_".count) : nil
    }

    /// Tolerance 0 whatever `--tolerance` says (per-metric tolerances still apply).
    static func isStrict(_ row: SummaryRow) -> Bool {
        MetricPolicies.policy(row)?.strict ?? false
    }

    /// With `strictOnly`, only correctness metrics and allocation counts are judged. A positive
    /// control the gate would not flag fails the comparison unless `blindControlsFail` is false
    /// (then it is a warning).
    public init(
        baseline: [SummaryRow], current: [SummaryRow], tolerance: Double,
        perMetric: [(pattern: String, tolerance: Double)], strictOnly: Bool = false, blindControlsFail: Bool = true
    ) {
        func key(_ row: SummaryRow) -> String { "\(row.scenario).\(row.key)" }
        let currentByKey = Dictionary(current.map { (key($0), $0) }, uniquingKeysWith: { _, last in last })
        let baselineByKey = Dictionary(baseline.map { (key($0), $0) }, uniquingKeysWith: { _, last in last })
        let baselineKeys = Set(baselineByKey.keys)
        var ratioTolerances: [String: Double] = [:]
        for row in baseline {
            let polarity = Self.polarity(row)
            guard polarity != .informational, !strictOnly || Self.isStrict(row) else { continue }
            let (allowed, spreads) = Self.allowed(
                row, tolerance: tolerance, perMetric: perMetric, baselineByKey: baselineByKey,
                currentByKey: currentByKey)
            if spreads != nil { ratioTolerances[key(row)] = allowed }
            guard let now = currentByKey[key(row)] else {
                lines.append(
                    Line(
                        key: key(row), baseline: row.value, current: nil, unit: row.unit, change: .nan,
                        tolerance: allowed,
                        polarity: polarity, verdict: .missing))
                continue
            }
            let (verdict, change) = Self.judge(row, now, polarity: polarity, allowed: allowed)
            let speed =
                spreads == nil
                ? nil : Self.referenceSpeed(of: row, baselineByKey: baselineByKey, currentByKey: currentByKey)
            var line = Line(
                key: key(row), baseline: row.value, current: now.value, unit: row.unit, change: change,
                tolerance: allowed, polarity: polarity, verdict: verdict, spreads: spreads, referenceSpeed: speed)
            if line.fromAnotherMachine {
                line.tolerance = Self.crossMachineTolerance
                let worse = Self.worseFactor(baseline: row.value, current: now.value, polarity: polarity)
                line.verdict = worse > 1 + line.tolerance ? .regression : .otherMachine
            }
            lines.append(line)
        }
        judgeControls(
            current, baselineByKey: baselineByKey, ratioTolerances: ratioTolerances,
            blindControlsFail: blindControlsFail)
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
        // An interrupted run is partial whatever the baseline was: one interrupted too (an
        // "unchanged" interruption) cannot make it pass.
        for index in lines.indices
        where lines[index].key.hasSuffix("." + MetricKey.runInterrupted.text) && (lines[index].current ?? 0) > 0 {
            lines[index].verdict = .regression
        }
    }

    /// How many times the baseline's speed a same-run ratio's reference workload (`ratio_vs_R`: R's
    /// `ops_per_s` in the same group) ran at now; nil when either run did not record it.
    static func referenceSpeed(
        of row: SummaryRow, baselineByKey: [String: SummaryRow], currentByKey: [String: SummaryRow]
    ) -> Double? {
        guard let reference = referenceName(of: row) else { return nil }
        let key = "\(row.scenario).\(row.probe).\(reference).ops_per_s"
        guard let before = baselineByKey[key]?.value, let now = currentByKey[key]?.value,
            before > 0, now > 0, before.isFinite, now.isFinite
        else { return nil }
        return now / before
    }

    /// A row's tolerance: 0 for a strict metric, the gross one for a warn-only timing, the run's
    /// otherwise; a same-run ratio's from the spreads both runs measured (returned beside it); a
    /// `--tolerance METRIC=PCT` that matches overrides all.
    static func allowed(
        _ row: SummaryRow, tolerance: Double, perMetric: [(pattern: String, tolerance: Double)],
        baselineByKey: [String: SummaryRow], currentByKey: [String: SummaryRow]
    ) -> (Double, (baseline: Double?, current: Double?)?) {
        let components = [row.scenario, row.probe, row.metric, row.statistic]
        let policy = MetricPolicies.policy(row)
        var allowed = Self.isStrict(row) ? 0 : policy?.warnOnly == true ? Self.grossTolerance : tolerance
        var spreads: (baseline: Double?, current: Double?)?
        if let spreadKey = Self.spreadKey(of: row) {
            let pair = (baselineByKey[spreadKey]?.value, currentByKey[spreadKey]?.value)
            if let measured = RatioGate.tolerance(baselineSpread: pair.0, currentSpread: pair.1) {
                allowed = measured
                spreads = pair
            }
        }
        if let specific = perMetric.last(where: { Self.matches($0.pattern, components) }) {
            allowed = specific.tolerance
        }
        return (allowed, spreads)
    }

    /// A metric's verdict against its baseline, and its relative change (`allowed`: its tolerance).
    static func judge(_ row: SummaryRow, _ now: SummaryRow, polarity: Polarity, allowed: Double) -> (Verdict, Double) {
        let policy = MetricPolicies.policy(row)
        if row.value.isNaN || now.value.isNaN {
            if row.value.isNaN { return (now.value.isNaN ? .unchanged : .notAvailable, 0) }
            // It was measured and now is not: a run that stopped measuring a correctness metric
            // regressed; for the rest it is a warning.
            return (policy?.strict == true && policy?.needsExtra == false ? .regression : .notAvailable, 0)
        }
        let change: Double
        if row.value == now.value {
            change = 0
        } else if row.value == 0 {
            change = now.value > 0 ? .infinity : -.infinity
        } else {
            change = (now.value - row.value) / abs(row.value)
        }
        // Judged as a factor, the same in both polarities: tolerance t allows (1 + t)× worse.
        let worse = Self.worseFactor(baseline: row.value, current: now.value, polarity: polarity)
        if Self.isStrict(row), now.value < 0, now.value != row.value {
            // A strict metric is a count of defects, of allocations or a ratio of correct
            // outcomes: a negative one is not a measurement, and never an improvement.
            return (.regression, change)
        } else if let slack = policy?.slack, slack > 0, abs(now.value - row.value) <= slack {
            return (.unchanged, change)
        } else if worse > 1 + allowed {
            return (policy?.warnOnly == true ? .warning : .regression, change)
        } else if worse < 1 / (1 + allowed) {
            return (.improvement, change)
        }
        return (.unchanged, change)
    }

    /// Each positive control of `current` (a workload slowed on purpose) against its subject's
    /// baseline and the ratio's tolerance: one the gate would not flag is a line of its own.
    private mutating func judgeControls(
        _ current: [SummaryRow], baselineByKey: [String: SummaryRow], ratioTolerances: [String: Double],
        blindControlsFail: Bool
    ) {
        func key(_ row: SummaryRow) -> String { "\(row.scenario).\(row.key)" }
        for row in current where Self.isControl(row) {
            var subject = row
            subject.metric.removeLast(Self.controlSuffix.count)
            guard let reference = baselineByKey[key(subject)], let allowed = ratioTolerances[key(subject)],
                !reference.value.isNaN, !row.value.isNaN,
                // Another machine: the subject is judged only for a gross change, and a control
                // built to show a 1.3x one is not judged.
                !lines.contains(where: { $0.key == key(subject) && $0.fromAnotherMachine })
            else { continue }
            var built = current.first {
                $0.scenario == row.scenario && $0.probe == row.probe && $0.metric == row.metric
                    && $0.statistic == "control_slowdown"
            }?.value
            if built?.isNaN == true { built = nil }
            let control = Control(
                key: key(row), subjectKey: key(subject), built: built,
                measured: Self.worseFactor(baseline: reference.value, current: row.value, polarity: .higherIsBetter),
                tolerance: allowed)
            controls.append(control)
            if !control.flagged {
                lines.append(
                    Line(
                        key: key(row), baseline: reference.value, current: row.value, unit: row.unit,
                        change: (row.value - reference.value) / abs(reference.value), tolerance: allowed,
                        polarity: .higherIsBetter, verdict: blindControlsFail ? .blind : .warning))
            }
        }
    }

    /// A Markdown table of every line that is not unchanged, and a summary.
    public func markdown() -> String {
        let judged = lines.filter { $0.verdict != .unchanged }
        var text = linesTable(judged) + ratioTable() + controlLines()
        let otherMachine = lines.filter { $0.verdict == .otherMachine }
        if !otherMachine.isEmpty {
            let speeds = otherMachine.compactMap(\.referenceSpeed)
            text += String(
                format:
                    "note: %d same-run ratios judged only for a change over %.0f%%: their reference workloads ran at %.2f-%.2fx the baseline's speed (more than %.0f%% away), so this is another machine than the baseline's and its ratios do not compare within their spreads; their positive controls are not judged either. Allocation counts and correctness still are. To gate timings on this machine, make a baseline on it (scripts/update-baselines.sh; docs/benchmarks.md).\n\n",
                otherMachine.count, Self.crossMachineTolerance * 100, speeds.min() ?? .nan, speeds.max() ?? .nan,
                Self.machineTolerance * 100)
        }
        return text + summary(unchanged: lines.count - judged.count) + "\n"
    }

    /// The judged lines as a table (nothing when there are none).
    private func linesTable(_ judged: [Line]) -> String {
        guard !judged.isEmpty else { return "" }
        var text = "| metric | baseline | current | change | tolerance | better | verdict |\n"
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
                "| \(MarkdownText.key(line.key)) | \(baseline) \(MarkdownText.key(line.unit)) | \(current) | \(change) | \(String(format: "%.0f%%", line.tolerance * 100)) | \(line.polarity.rawValue) | \(line.verdict.rawValue) |\n"
        }
        return text + "\n"
    }

    /// The same-run ratio gates as a table (nothing when there are none).
    private func ratioTable() -> String {
        guard !ratioGates.isEmpty else { return "" }
        var text = "Same-run ratios (tolerance = \(SummaryCSV.format(RatioGate.spreadMultiple))x the larger spread, "
        text += "at least \(String(format: "%.0f%%", RatioGate.floor * 100))):\n\n"
        text +=
            "| ratio | baseline | current | spread (baseline / current) | smallest detectable slowdown | verdict |\n"
        text += "|---|---:|---:|---:|---:|---|\n"
        func percent(_ value: Double?) -> String {
            guard let value, value.isFinite else { return "—" }
            return String(format: "%.1f%%", value * 100)
        }
        for line in ratioGates.sorted(by: { $0.key < $1.key }) {
            let baseline = line.baseline.map { String(format: "%.4gx", $0) } ?? "—"
            let current = line.current.map { String(format: "%.4gx", $0) } ?? "—"
            text +=
                "| \(MarkdownText.key(line.key)) | \(baseline) | \(current) | \(percent(line.spreads?.baseline)) / \(percent(line.spreads?.current)) | \(String(format: "%.2fx", 1 + line.tolerance)) | \(line.verdict.rawValue) |\n"
        }
        return text + "\n"
    }

    /// One line per positive control, whether the gate sees its slowdown.
    private func controlLines() -> String {
        guard !controls.isEmpty else { return "" }
        var text = ""
        for control in controls {
            let built = control.built.map { String(format: " (built %.2fx slower)", $0) } ?? ""
            text += String(
                format: "positive control %@%@: %.2fx worse than the baseline's %@, tolerance %.1f%%: %@\n",
                control.key, built, control.measured, control.subjectKey, control.tolerance * 100,
                control.flagged
                    ? "flagged (the gate sees it)"
                    : "NOT FLAGGED: this gate cannot see the slowdown it is there to catch")
        }
        return text + "\n"
    }

    /// The counts: regressions, improvements, unchanged, warnings and metrics not available.
    private func summary(unchanged: Int) -> String {
        var text =
            "\(regressions.count) regressions, \(improvements.count) improvements beyond tolerance, \(unchanged) unchanged"
        if !warnings.isEmpty {
            text += ", \(warnings.count) absolute timings changed beyond the gross tolerance (warnings, not judged)"
        }
        let unavailable = lines.filter { $0.verdict == .notAvailable }
        if !unavailable.isEmpty {
            text += ", \(unavailable.count) not available in one run"
            let lost = unavailable.filter { $0.baseline.map { !$0.isNaN } ?? false }
            if !lost.isEmpty {
                text += "\nwarning: \(lost.count) metrics were measured in the baseline and are n/a now: "
                text +=
                    lost.prefix(5).map { MarkdownText.key($0.key) }.joined(separator: ", ")
                    + (lost.count > 5 ? ", …" : "")
            }
        }
        return text
    }
}
