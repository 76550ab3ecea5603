/// A run's metric values, by assertion name (`Measurement.metrics`): assertions read them by the
/// names a scenario spells, code reads them by key. A reader that needs a figure every load
/// produces asks for it with `required`, so a renamed or missing metric stops the reader with an
/// error that names it instead of reading as a default.
extension [String: Double] {
    /// The value recorded under `key`; nil when the run did not produce it (a section the
    /// scenario does not have).
    package subscript(key: MetricKey) -> Double? {
        precondition(!key.isPattern, "a metric is read by a concrete key, not the pattern \(key)")
        return self[key.text]
    }

    /// The value recorded under `key`, which the reader relies on being there.
    package func required(_ key: MetricKey) throws(MissingMetric) -> Double {
        guard let value = self[key] else { throw MissingMetric(key: key, recorded: keys.sorted()) }
        return value
    }
}

/// A metric a reader relies on was not recorded: a producer renamed it or stopped recording it.
public struct MissingMetric: Error, CustomStringConvertible {
    public var key: MetricKey
    /// What was recorded instead, for the message.
    public var recorded: [String]

    public var description: String {
        let nearby = recorded.filter { $0.hasPrefix(key.text.prefix { $0 != "." }) }.prefix(8)
        return "the metric \(key) was not recorded"
            + (nearby.isEmpty ? "" : " (recorded under the same probe: \(nearby.joined(separator: ", ")))")
    }
}
