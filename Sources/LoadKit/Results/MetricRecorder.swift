/// Records metrics as the catalog declares them: each `record` writes the summary row (its unit
/// from the catalog) and, for a metric assertions read, its value under its name. A producer names
/// only the metric and its value.
struct MetricRecorder {
    private(set) var builder: SummaryBuilder
    private(set) var metrics: [String: Double] = [:]

    init(scenario: String) {
        builder = SummaryBuilder(scenario: scenario)
    }

    var rows: [SummaryRow] { builder.rows }

    /// Records `value` as the metric `key` (its assertion name, or its row when it has none).
    /// A key the catalog does not declare is written as the row `key.undeclared.value`, which no
    /// policy judges: the test that every written row is declared fails on it.
    mutating func record(_ key: String, _ value: Double) {
        guard let metric = MetricCatalog.metric(forKey: key), let row = metric.row(of: key) else {
            builder.add(key, "undeclared", "value", value, "?")
            return
        }
        builder.add(row.probe, row.metric, row.statistic, value, metric.unit)
        if metric.name != nil { metrics[key] = value }
    }

    /// Records a count per code as the metrics `prefix.<code>`, in the codes' order.
    mutating func record(counts: [String: Int], prefix: String) {
        for (code, count) in counts.sorted(by: { $0.key < $1.key }) {
            record("\(prefix).\(code)", Double(count))
        }
    }

    /// Records a histogram of values in units of `divisor` as the rows `probe.metric.count` and
    /// (when it holds samples) its mean and percentiles; the statistics the catalog names get
    /// their value (NaN when empty) under their names.
    mutating func record(histogram: Histogram, probe: String, metric: String, divisor: Double) {
        record("\(probe).\(metric).count", Double(histogram.count))
        let quantiles = Histogram.reportedQuantiles.map { ($0.name, histogram.value(at: $0.quantile)) }
        for (statistic, raw) in [("mean", histogram.mean)] + quantiles {
            let row = "\(probe).\(metric).\(statistic)"
            guard let entry = MetricCatalog.metric(probe: probe, metric: metric, statistic: statistic),
                let values = MetricPattern.match(entry.row, row)
            else {
                builder.add(row, "undeclared", "value", raw / divisor, "?")
                continue
            }
            if histogram.count > 0 { builder.add(probe, metric, statistic, raw / divisor, entry.unit) }
            if let name = entry.name {
                metrics[MetricPattern.fill(name, values)] = histogram.count > 0 ? raw / divisor : .nan
            }
        }
    }
}
