/// Reading the catalog: by assertion name (assertions, `list --metrics`), by row (the gate), by
/// what a producer records (`MetricRecorder`). A name with a part in angle brackets stands for a
/// set (`send.errors.<code>`: the codes of docs/scenarios.md).
extension MetricCatalog {
    /// Every assertion name, in the order of docs/scenarios.md (`list --metrics`).
    public static let entries: [Metric] = all.filter { $0.name != nil }

    /// The names of each probe's metrics that stand for one metric each (no placeholder).
    public static let names: [ProbeKind: Set<String>] = {
        var names: [ProbeKind: Set<String>] = [:]
        for metric in entries where !metric.isPattern {
            if case .probe(let kind) = metric.source { names[kind, default: []].insert(metric.key) }
        }
        return names
    }()

    static let examples = "idempotency.duplicates, jitter.ks_d, send.success_rate, attempts_per_send.max"

    /// Families whose exact names the scenario decides (its phases, its reference): any name under
    /// them belongs to their producer, and `unknownPart(of:in:)` says what is wrong with it.
    static let scenarioFamilies: [String: Source] = ["cancellation.": .cancellation, "calibration.": .calibration]

    /// Who produces `name`; nil for a name nothing produces.
    public static func source(of name: String) -> Source? {
        if let metric = entry(for: name) { return metric.source }
        return scenarioFamilies.first { name.hasPrefix($0.key) }?.value
    }

    /// The statistics a cancellation cell reports as assertable (`cancellation.<phase>.<idle|load>.<statistic>`).
    static let cancellationStatistics: Set<String> = statistics(named: "cancellation.<phase>.<idle|load>.")

    /// The statistics of the raw URLSession baseline's cells that assertions can read.
    static let rawCancellationStatistics: Set<String> = statistics(
        named: "cancellation.raw_urlsession.inFlight.<idle|load>.")

    /// What the memory soak reports, in flight and in a backoff (`cancellation.soak.<name>`).
    static let soakStatistics: Set<String> = statistics(named: "cancellation.soak.")

    private static func statistics(named prefix: String) -> Set<String> {
        Set(entries.compactMap { $0.key.hasPrefix(prefix) ? String($0.key.dropFirst(prefix.count)) : nil })
    }

    /// The summary row (`probe`, `metric`, `statistic`) an assertion name reads; for a name the
    /// catalog does not declare, the name itself as the probe.
    public static func row(of name: String) -> (probe: String, metric: String, statistic: String) {
        entry(for: name)?.row(of: name) ?? (name, "", "")
    }

    /// The catalog entry a concrete assertion name falls under (`send.errors.timeout` →
    /// `send.errors.<code>`); nil for a name no assertion can use.
    static func entry(for name: String) -> Metric? {
        guard let metric = metric(forKey: name), metric.name != nil else { return nil }
        return metric
    }

    /// The entry a producer records by `key` (an assertion name, or a row for a row without one).
    static func metric(forKey key: String) -> Metric? {
        if let index = byKey[key] { return all[index] }
        return patterns.lazy.map { all[$0] }.first { MetricPattern.match($0.key, key) != nil }
    }

    /// The entry a summary row falls under; nil for a row the catalog does not declare (a
    /// benchmark's: `MetricPolicies` judges those by its rules). A row is matched field by field,
    /// so a placeholder that is a whole field (`cell.<policy>.…`) takes a value with dots.
    static func metric(probe: String, metric: String, statistic: String) -> Metric? {
        if let index = byRow["\(probe).\(metric).\(statistic)"] { return all[index] }
        return patterns.lazy.map { all[$0] }.first {
            MetricPattern.matchField($0.probe, probe) && MetricPattern.matchField($0.metric, metric)
                && MetricPattern.matchField($0.statistic, statistic)
        }
    }

    /// The entry declared by exactly this key (a pattern's too: `cell.<policy>.success_rate`).
    static func metric(declaredAs key: MetricKey) -> Metric? {
        byDeclaredKey[key.text].map { all[$0] }
    }

    /// Counts that did not occur are 0; anything else missing is NaN (and fails).
    static func defaultValue(_ name: String) -> Double {
        name.hasPrefix("send.errors.") || name.hasPrefix("attempts.errors.") ? 0 : .nan
    }

    private static let byKey: [String: Int] = Dictionary(
        all.indices.filter { !all[$0].isPattern }.map { (all[$0].key, $0) }, uniquingKeysWith: { first, _ in first })

    private static let byDeclaredKey: [String: Int] = Dictionary(
        all.indices.map { (all[$0].key, $0) }, uniquingKeysWith: { first, _ in first })

    private static let byRow: [String: Int] = Dictionary(
        all.indices.filter { !all[$0].row.contains("<") }.map { (all[$0].row, $0) },
        uniquingKeysWith: { first, _ in first })

    private static let patterns: [Int] = all.indices.filter { all[$0].isPattern || all[$0].row.contains("<") }
}
