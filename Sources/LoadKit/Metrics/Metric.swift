/// One metric, declared once in `MetricCatalog.all`: the summary row it is written as, the name
/// assertions read it by, its unit, how the regression gate judges it, and what produces it.
/// Producers record it through `MetricRecorder`; assertions, `list --metrics`, the gate and the
/// report read it from here.
///
/// A part in angle brackets stands for a set: `send.errors.<code>` (any one part),
/// `jitter.ks_d.attempt<N>` (a whole number after the stem).
public struct Metric: Sendable, Hashable {
    /// The summary row: `probe`, `metric`, `statistic` (patterns, with the name's placeholders).
    public var probe: String
    public var metric: String
    public var statistic: String
    /// The name assertions use; nil for a row no assertion reads (a histogram's sample count, the
    /// value a statistic is expected to have, the run's own rows).
    public var name: String?
    public var unit: String
    public var policy: MetricPolicy
    public var source: MetricCatalog.Source
    /// Measured only on virtual time, exactly (from the server's ledger, against instants no real
    /// clock gives): a sharded run, which runs on the real clock, cannot measure it.
    public var virtualOnly = false

    /// This metric, measured only on virtual time.
    func virtualTimeOnly() -> Metric {
        var copy = self
        copy.virtualOnly = true
        return copy
    }

    /// `probe.metric.statistic`, the row's key in the summary (a pattern).
    public var row: String { "\(probe).\(metric).\(statistic)" }

    /// What a producer records it by: its assertion name, or its row when it has none.
    public var key: String { name ?? row }

    /// Whether the key stands for a set (it has a placeholder).
    var isPattern: Bool { key.contains("<") }

    /// The row of a concrete key of this metric (`send.errors.timeout` → `send`, `errors`,
    /// `timeout`); nil when the key is not one of this metric's.
    func row(of key: String) -> (probe: String, metric: String, statistic: String)? {
        guard let values = MetricPattern.match(self.key, key) else { return nil }
        return (
            MetricPattern.fill(probe, values), MetricPattern.fill(metric, values), MetricPattern.fill(statistic, values)
        )
    }
}

/// Dotted names with placeholders, matched part by part (a statistic like `p99.9` is two parts
/// on both sides, so it lines up).
enum MetricPattern {
    /// The placeholders' values when `text` is an instance of `pattern`; nil when it is not. A part
    /// `<x>` takes any one non-empty part; a part `stem<N>` takes the stem followed by a whole
    /// number.
    static func match(_ pattern: String, _ text: String) -> [String: String]? {
        // A name without a placeholder matches itself only (the common case: no splitting).
        guard pattern.contains("<") else { return pattern == text ? [:] : nil }
        let wanted = pattern.split(separator: ".", omittingEmptySubsequences: false)
        let actual = text.split(separator: ".", omittingEmptySubsequences: false)
        guard wanted.count == actual.count else { return nil }
        var values: [String: String] = [:]
        for (want, part) in zip(wanted, actual) {
            guard let open = want.firstIndex(of: "<") else {
                guard want == part else { return nil }
                continue
            }
            let stem = want[..<open]
            let placeholder = String(want[open...])
            guard part.hasPrefix(stem), part.count > stem.count else { return nil }
            let value = part.dropFirst(stem.count)
            if placeholder == "<N>" {
                guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) else { return nil }
                values[placeholder] = String(part)
            } else {
                guard stem.isEmpty else { return nil }
                values[placeholder] = String(value)
            }
        }
        return values
    }

    /// Whether one field of a summary row (`probe`, `metric` or `statistic`) is an instance of the
    /// pattern's field: a field that is one placeholder (`<policy>`) takes any non-empty value, dots
    /// and all; any other is matched part by part.
    static func matchField(_ pattern: String, _ field: String) -> Bool {
        if isWholePlaceholder(pattern) { return !field.isEmpty }
        return match(pattern, field) != nil
    }

    /// A field that is nothing but one placeholder, such as `<policy>` or `<code>`.
    static func isWholePlaceholder(_ field: String) -> Bool {
        field.hasPrefix("<") && field.hasSuffix(">")
            && field.dropFirst().dropLast().allSatisfy { $0 != "<" && $0 != ">" && $0 != "." }
    }

    /// `pattern` with each placeholder part replaced by its value.
    static func fill(_ pattern: String, _ values: [String: String]) -> String {
        guard pattern.contains("<") else { return pattern }
        return pattern.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            guard let open = part.firstIndex(of: "<") else { return String(part) }
            return values[String(part[open...])] ?? String(part)
        }.joined(separator: ".")
    }
}
