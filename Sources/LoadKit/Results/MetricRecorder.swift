extension SummaryRow {
    /// Whether this is the row `key` names (`run.crash.signal`).
    func isRow(of key: MetricKey) -> Bool { self.key == key.text }
}

/// Records metrics as the catalog declares them: each `record` writes the summary row (its unit
/// from the catalog) and, for a metric assertions read, its value under its name. A producer names
/// only the metric's key and its value.
struct MetricRecorder {
    private(set) var builder: SummaryBuilder
    private(set) var metrics: [String: Double] = [:]

    init(scenario: String) {
        builder = SummaryBuilder(scenario: scenario)
    }

    var rows: [SummaryRow] { builder.rows }

    /// Records `value` as the metric `key`. A key the catalog does not declare is written as the
    /// row `key.undeclared.value`, which no policy judges: the test that every written row is
    /// declared fails on it.
    mutating func record(_ key: MetricKey, _ value: Double) {
        precondition(!key.isPattern, "recorded by a pattern's key: \(key)")
        guard let metric = MetricCatalog.metric(forKey: key.text), let row = metric.row(of: key.text) else {
            builder.add(key.text, "undeclared", "value", value, "?")
            return
        }
        builder.add(row.probe, row.metric, row.statistic, value, metric.unit)
        if metric.name != nil { metrics[key.text] = value }
    }

    /// Records `value` as the row of `key` whose whole-field placeholder (`<policy>`) is `label`:
    /// a sweep's rows, whose policy labels may hold dots.
    mutating func record(_ key: MetricKey, label: String, _ value: Double) {
        guard let metric = MetricCatalog.metric(declaredAs: key) else {
            builder.add(key.text, "undeclared", "value", value, "?")
            return
        }
        let fill = { (field: String) in MetricPattern.isWholePlaceholder(field) ? label : field }
        builder.add(fill(metric.probe), fill(metric.metric), fill(metric.statistic), value, metric.unit)
    }

    /// Records a count per code as the metrics `key(code)`, in the codes' order.
    mutating func record(counts: [String: Int], as key: (String) -> MetricKey) {
        for (code, count) in counts.sorted(by: { $0.key < $1.key }) {
            record(key(code), Double(count))
        }
    }

    /// Records a histogram of values in units of `divisor` as the rows `probe.metric.count` and
    /// (when it holds samples) its mean and percentiles; the statistics the catalog names get
    /// their value (NaN when empty) under their names.
    mutating func record(_ histogram: Histogram, as key: HistogramKey, divisor: Double) {
        record(key.key("count"), Double(histogram.count))
        let quantiles = Histogram.reportedQuantiles.map { ($0.name, histogram.value(at: $0.quantile)) }
        for (statistic, raw) in [("mean", histogram.mean)] + quantiles {
            let row = "\(key.probe).\(key.metric).\(statistic)"
            guard let entry = MetricCatalog.metric(probe: key.probe, metric: key.metric, statistic: statistic),
                let values = MetricPattern.match(entry.row, row)
            else {
                builder.add(row, "undeclared", "value", raw / divisor, "?")
                continue
            }
            if histogram.count > 0 { builder.add(key.probe, key.metric, statistic, raw / divisor, entry.unit) }
            if let name = entry.name {
                metrics[MetricPattern.fill(name, values)] = histogram.count > 0 ? raw / divisor : .nan
            }
        }
    }
}
