import FakeFrontmail
import Foundation

/// A check on a run's results, written `NAME OP VALUE`: `idempotency.duplicates == 0`,
/// `send.success_rate >= 0.99`, `jitter.ks_d < critical`. VALUE is a number, another name, or a
/// number times a name measured in the same run (`send.throughput >= 0.5 * calibration.raw_urlsession.throughput`).
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
        /// A number times a metric of the same run: a threshold relative to a baseline.
        case scaled(Double, String)
    }

    public var text: String
    public var name: String
    public var op: Operator
    public var value: Operand

    public var description: String { text }

    public init(parsing text: String) throws(InputError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let ops = Operator.allCases.map(\.rawValue).joined(separator: " ")
        let grammar = "write NAME OP VALUE with OP one of \(ops) and VALUE a number, a name or NUMBER * NAME"
        guard parts.count == 3 || parts.count == 5, let op = Operator(rawValue: parts[1]) else {
            throw InputError(path: "", reason: "'\(text)' is not an assertion (\(grammar))")
        }
        self.text = text
        self.name = parts[0]
        self.op = op
        if parts.count == 5 {
            guard let factor = Double(parts[2]), factor.isFinite, factor > 0, parts[3] == "*",
                Double(parts[4]) == nil
            else {
                throw InputError(
                    path: "", reason: "'\(text)' is not an assertion (\(grammar); the number must be positive)")
            }
            value = .scaled(factor, parts[4])
        } else if let number = Double(parts[2]) {
            // `nan` compares false with everything and `inf` passes or fails whatever was measured.
            guard number.isFinite else {
                throw InputError(path: "", reason: "'\(text)': \(parts[2]) is not a finite number (\(grammar))")
            }
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
            if let reason = MetricCatalog.unknownPart(of: name, in: scenario) {
                throw InputError(path: path, reason: "'\(name)': \(reason)")
            }
            switch (source, scenario.experiment) {
            case (.cancellation, .cancellation), (.calibration, .load), (.timeseries, .load): break
            case (.control, .load) where scenario.load.control != nil: break
            case (.control, _):
                throw InputError(
                    path: path,
                    reason: "'\(name)' is measured by a load's control arm (load.control), which this scenario lacks")
            case (.status, .load) where scenario.status != nil: break
            case (.status, _):
                throw InputError(path: path, reason: "'\(name)' needs a status section, which this scenario lacks")
            case (.metastability, .load) where scenario.metastability != nil: break
            case (.metastability, _):
                throw InputError(
                    path: path, reason: "'\(name)' needs a metastability section, which this scenario lacks")
            case (.timeseries, .cancellation):
                throw InputError(path: path, reason: "'\(name)' is measured in a load, not a cancellation experiment")
            case (.calibration, .cancellation):
                throw InputError(
                    path: path, reason: "'\(name)' belongs to a calibrated load, not a cancellation experiment")
            case (.cancellation, .load):
                throw InputError(
                    path: path, reason: "'\(name)' needs a cancellation section, which this scenario lacks")
            case (.probe(let probe), _) where !scenario.probes.contains(probe):
                throw InputError(
                    path: path, reason: "'\(name)' needs the \(probe.rawValue) probe, which this scenario does not run")
            case (.probe, _): break
            case (.run, _), (.tune, _): break  // no assertion name is a run row or a sweep row
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
        case .scaled(let factor, let other): expected = factor * (metrics[other] ?? MetricCatalog.defaultValue(other))
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
}

extension Assertion.Operand {
    var metricName: String? {
        switch self {
        case .metric(let name), .scaled(_, let name): return name
        case .number: return nil
        }
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
