import FakeFrontmail
import Foundation

/// One measured figure in long form: what was measured, which statistic, its value and unit.
public struct SummaryRow: Sendable, Hashable {
    public var scenario: String
    public var probe: String
    public var metric: String
    public var statistic: String
    public var value: Double
    public var unit: String

    public init(scenario: String, probe: String, metric: String, statistic: String, value: Double, unit: String) {
        self.scenario = scenario
        self.probe = probe
        self.metric = metric
        self.statistic = statistic
        self.value = value
        self.unit = unit
    }

    /// `probe.metric.statistic`, the name assertions and baselines use.
    public var key: String { "\(probe).\(metric).\(statistic)" }
}

/// Collects rows for one scenario or benchmark.
public struct SummaryBuilder: Sendable {
    public let scenario: String
    public private(set) var rows: [SummaryRow] = []

    public init(scenario: String) {
        self.scenario = scenario
    }

    public mutating func add(_ probe: String, _ metric: String, _ statistic: String, _ value: Double, _ unit: String) {
        rows.append(
            SummaryRow(scenario: scenario, probe: probe, metric: metric, statistic: statistic, value: value, unit: unit)
        )
    }

    /// Count, mean and the reported percentiles of a histogram of `unitScale` units per `unit`.
    public mutating func add(
        _ probe: String, _ metric: String, histogram: Histogram, divisor: Double, unit: String
    ) {
        add(probe, metric, "count", Double(histogram.count), "samples")
        guard histogram.count > 0 else { return }
        add(probe, metric, "mean", histogram.mean / divisor, unit)
        for (name, quantile) in Histogram.reportedQuantiles {
            add(probe, metric, name, histogram.value(at: quantile) / divisor, unit)
        }
    }
}

/// The long-form summary CSV (docs/csv.md): a stable, versioned interface.
public enum SummaryCSV {
    public static let schemaVersion = 1
    public static let header = "schema_version,run_id,scenario,probe,metric,statistic,value,unit"

    public static func render(_ rows: [SummaryRow], runID: String) -> String {
        var text = header + "\n"
        for row in rows {
            let fields = [
                String(schemaVersion), runID, row.scenario, row.probe, row.metric, row.statistic, format(row.value),
                row.unit,
            ]
            text += fields.map(CSV.field).joined(separator: ",") + "\n"
        }
        return text
    }

    /// Shortest exact form; integers without a fraction; `n/a` for a value not measured; `inf`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "n/a" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Parses a summary CSV back into rows (for `compare`); errors name the line.
    /// The rows of a summary CSV. With `unique`, a row whose scenario and key already appeared is
    /// refused (a run writes each row once; a second copy would silently replace the first in a
    /// comparison).
    public static func parse(_ text: String, unique: Bool = false) throws(CSVError) -> (
        runID: String, rows: [SummaryRow]
    ) {
        var lines = CSV.rows(text)
        guard let header = lines.first else { throw CSVError(line: 1, reason: "empty file") }
        lines.removeFirst()
        let columns = header
        let (index, schemaColumn) = try Self.columns(of: header)
        let runColumn = columns.firstIndex(of: "run_id")
        var runID = ""
        var rows: [SummaryRow] = []
        var seen: [String: Int] = [:]
        for (offset, fields) in lines.enumerated() where !(fields.count == 1 && fields[0].isEmpty) {
            guard fields.count == columns.count else {
                throw CSVError(line: offset + 2, reason: "has \(fields.count) fields, the header has \(columns.count)")
            }
            guard fields[schemaColumn] == String(schemaVersion) else {
                throw CSVError(
                    line: offset + 2,
                    reason:
                        "schema_version \(fields[schemaColumn]) is not \(schemaVersion), the version this tool reads")
            }
            guard let value = parseValue(fields[index[4]]) else {
                throw CSVError(line: offset + 2, reason: "value '\(fields[index[4]])' is not a number")
            }
            if let runColumn { runID = fields[runColumn] }
            // A success rate is a share of sends: 1.5 or inf is a damaged file, not a better run
            // (n/a: a run without sends has none).
            let metric = fields[index[2]]
            let statistic = fields[index[3]]
            if metric.hasSuffix("success_rate") || statistic.hasPrefix("success_rate"), !value.isNaN,
                !(0...1).contains(value)
            {
                throw CSVError(line: offset + 2, reason: "success rate \(fields[index[4]]) is outside 0-1")
            }
            let row = SummaryRow(
                scenario: fields[index[0]], probe: fields[index[1]], metric: fields[index[2]],
                statistic: fields[index[3]], value: value, unit: fields[index[5]])
            if unique {
                let identity = row.scenario + "\u{0}" + row.key
                if let first = seen[identity] {
                    throw CSVError(
                        line: offset + 2,
                        reason:
                            "repeats the row \(row.scenario) \(row.key) of line \(first) (a run writes each row once)")
                }
                seen[identity] = offset + 2
            }
            rows.append(row)
        }
        return (runID, rows)
    }

    /// Where a summary CSV's header puts scenario, probe, metric, statistic, value and unit, and
    /// its schema version.
    private static func columns(of header: [String]) throws(CSVError) -> (index: [Int], schema: Int) {
        var index: [Int] = []
        for name in ["scenario", "probe", "metric", "statistic", "value", "unit"] {
            guard let column = header.firstIndex(of: name) else {
                throw CSVError(line: 1, reason: "not a summary CSV: no '\(name)' column (expected \(Self.header))")
            }
            index.append(column)
        }
        guard let schemaColumn = header.firstIndex(of: "schema_version") else {
            throw CSVError(line: 1, reason: "no 'schema_version' column (expected \(Self.header))")
        }
        return (index, schemaColumn)
    }

    static func parseValue(_ text: String) -> Double? {
        switch text {
        case "nan", "n/a": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }
}

public struct CSVError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "line \(line): \(reason)" }
}

/// RFC 4180 fields and rows.
public enum CSV {
    public static func field(_ text: String) -> String {
        AttemptLedger.csvField(text)
    }

    public static func line(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }

    /// A whole file: the header line, then a line per row, each ending in a line break.
    public static func document(header: String, rows: [[String]]) -> String {
        ([header] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// One column of a file: its name in the header beside the field it takes from a row, so the
    /// two cannot drift apart.
    package struct Column<Row>: Sendable {
        package var name: String
        package var field: @Sendable (Row) -> String

        package init(_ name: String, _ field: @escaping @Sendable (Row) -> String) {
            self.name = name
            self.field = field
        }
    }

    /// A whole file from its columns: the header their names, a line per row.
    package static func document<Row>(_ columns: [Column<Row>], rows: [Row]) -> String {
        document(
            header: columns.map(\.name).joined(separator: ","),
            rows: rows.map { row in columns.map { $0.field(row) } })
    }

    /// Splits CSV text into rows of fields (quotes and embedded newlines handled). Parsed as UTF-8
    /// bytes (every delimiter is ASCII): a million-row history is read in well under a second.
    public static func rows(_ text: String) -> [[String]] {
        var text = text
        return text.withUTF8 { bytes -> [[String]] in
            var rows: [[String]] = []
            var row: [String] = []
            var field: [UInt8] = []
            field.reserveCapacity(64)
            var quoted = false
            var index = 0
            func take() -> String {
                defer { field.removeAll(keepingCapacity: true) }
                return String(decoding: field, as: UTF8.self)
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == 0x22 {
                        if index < bytes.count, bytes[index] == 0x22 {
                            field.append(0x22)
                            index += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case 0x22: quoted = true
                case 0x2C: row.append(take())
                case 0x0A:
                    row.append(take())
                    rows.append(row)
                    row = []
                case 0x0D: continue
                default: field.append(byte)
                }
            }
            if !field.isEmpty || !row.isEmpty {
                row.append(take())
                rows.append(row)
            }
            return rows
        }
    }
}

extension MetricPolicies {
    /// The declared policy of a summary row.
    public static func policy(_ row: SummaryRow) -> MetricPolicy? {
        policy(probe: row.probe, metric: row.metric, statistic: row.statistic)
    }
}
