import FakeFrontmail
import Foundation

/// A check on a run's results, written `NAME OP VALUE`: `idempotency.duplicates == 0`,
/// `send.success_rate >= 0.99`, `jitter.ks_d < critical`. VALUE is a number or another name.
public struct Assertion: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case less = "<"
        case greater = ">"

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .equal: return lhs == rhs
            case .notEqual: return lhs != rhs
            case .lessOrEqual: return lhs <= rhs
            case .greaterOrEqual: return lhs >= rhs
            case .less: return lhs < rhs
            case .greater: return lhs > rhs
            }
        }
    }

    public enum Operand: Sendable, Hashable {
        case number(Double)
        case metric(String)
    }

    public var text: String
    public var name: String
    public var op: Operator
    public var value: Operand

    public var description: String { text }

    public init(parsing text: String) throws(InputError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3, let op = Operator(rawValue: parts[1]) else {
            let ops = Operator.allCases.map(\.rawValue).joined(separator: " ")
            throw InputError(
                path: "", reason: "'\(text)' is not an assertion (write NAME OP VALUE with OP one of \(ops))")
        }
        self.text = text
        self.name = parts[0]
        self.op = op
        if let number = Double(parts[2]) {
            value = .number(number)
        } else {
            value = .metric(parts[2] == "critical" ? "jitter.ks_critical" : parts[2])
        }
    }

    func validate(path: String, in scenario: Scenario) throws(InputError) {
        for name in [name] + (value.metricName.map { [$0] } ?? []) {
            guard let source = MetricCatalog.source(of: name) else {
                throw InputError(
                    path: path,
                    reason:
                        "unknown metric '\(name)' (see docs/scenarios.md for the names, e.g. \(MetricCatalog.examples))"
                )
            }
            switch (source, scenario.experiment) {
            case (.cancellation, .cancellation): break
            case (.cancellation, .load):
                throw InputError(
                    path: path, reason: "'\(name)' needs a cancellation section, which this scenario lacks")
            case (.probe(let probe), _) where !scenario.probes.contains(probe):
                throw InputError(
                    path: path, reason: "'\(name)' needs the \(probe.rawValue) probe, which this scenario does not run")
            case (.probe, _): break
            }
        }
    }

    /// Whether it holds, and the values compared.
    public func evaluate(_ metrics: [String: Double]) -> (passed: Bool, actual: Double, expected: Double) {
        let actual = metrics[name] ?? MetricCatalog.defaultValue(name)
        let expected: Double
        switch value {
        case .number(let number): expected = number
        case .metric(let other): expected = metrics[other] ?? MetricCatalog.defaultValue(other)
        }
        return (!actual.isNaN && !expected.isNaN && op.holds(actual, expected), actual, expected)
    }
}

/// One assertion judged against a run's metrics.
public struct AssertionCheck: Sendable {
    public var assertion: Assertion
    public var passed: Bool
    public var actual: Double
    public var expected: Double

    /// Every assertion evaluated against the metrics, in order.
    static func judge(_ assertions: [Assertion], _ metrics: [String: Double]) -> [AssertionCheck] {
        assertions.map { assertion in
            let outcome = assertion.evaluate(metrics)
            return AssertionCheck(
                assertion: assertion, passed: outcome.passed, actual: outcome.actual, expected: outcome.expected)
        }
    }
}

extension Assertion.Operand {
    var metricName: String? {
        if case .metric(let name) = self { return name }
        return nil
    }
}

extension Assertion: Decodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw InputError(path: InputError.path(decoder.codingPath), reason: error.reason)
        }
    }
}

/// The names assertions can use: fixed names per probe, plus per-code error counts.
public enum MetricCatalog {
    public static let names: [ProbeKind: Set<String>] = [
        .idempotency: [
            "idempotency.sends", "idempotency.effects", "idempotency.duplicates", "idempotency.lost",
            "idempotency.unexpected", "idempotency.fail_with_effect", "idempotency.info_with_effect",
            "idempotency.message_id_mismatches", "idempotency.key_changes", "idempotency.body_changes",
            "idempotency.key_collisions", "idempotency.defects",
        ],
        .jitter: [
            "jitter.samples", "jitter.ks_d", "jitter.ks_critical", "jitter.ks_critical_01", "jitter.ks_critical_001",
            "jitter.ks_p",
            "jitter.mean",
            "jitter.variance", "jitter.retry_after_waits", "jitter.retry_after_mismatches", "jitter.over_limit_retried",
            "jitter.early_retries", "jitter.overshoot.p50", "jitter.overshoot.p99", "jitter.overshoot.max",
        ],
        .outcome: [
            "send.sends", "send.ok", "send.failed", "send.success_rate", "send.dropped", "send.throughput",
            "send.latency.p50", "send.latency.p90", "send.latency.p99", "send.latency.p99.9", "send.latency.max",
            "attempts_per_send.mean", "attempts_per_send.max", "attempts_per_send.p99", "load.amplification",
            "load.server_requests",
        ],
    ]

    static let examples = "idempotency.duplicates, jitter.ks_d, send.success_rate, attempts_per_send.max"

    /// What produces a metric.
    public enum Source: Sendable, Hashable {
        case probe(ProbeKind)
        /// The cancellation experiment (`cancellation.*`).
        case cancellation
    }

    /// Who produces `name`; nil for a name nothing produces.
    public static func source(of name: String) -> Source? {
        if name.hasPrefix("send.errors.") || name.hasPrefix("attempts.errors.") { return .probe(.outcome) }
        if name.hasPrefix("cancellation.") { return .cancellation }
        for base in ["jitter.ks_d", "jitter.ks_critical_001", "jitter.ks_critical", "jitter.ks_p", "jitter.samples"]
        where name.hasPrefix(base + ".attempt") && Int(name.dropFirst(base.count + 8)) != nil {
            return .probe(.jitter)
        }
        return names.first { $0.value.contains(name) }.map { .probe($0.key) }
    }

    /// Counts that did not occur are 0; anything else missing is NaN (and fails).
    static func defaultValue(_ name: String) -> Double {
        name.hasPrefix("send.errors.") || name.hasPrefix("attempts.errors.") ? 0 : .nan
    }
}
