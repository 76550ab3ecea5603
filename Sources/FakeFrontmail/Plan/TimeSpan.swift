import Foundation

/// A duration written `250ms`, `2s`, `1.5s`, `1m`, `100us` (or a bare number of seconds).
public struct TimeSpan: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static func milliseconds(_ value: Double) -> TimeSpan { TimeSpan(seconds: value / 1000) }
    public static let zero = TimeSpan(seconds: 0)

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.seconds < rhs.seconds }

    /// Parses `250ms`, `2s`, `1m`, `1h`, `100us`, `-10s`; nil for anything else.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Sub-second units divide (a division by 1000 is correctly rounded, a product with 1e-3 is
        // not: `13861000us` must be the 13.861 s a Retry-After of 13.861 is, not 13.860999…).
        let units: [(String, Double, Double)] = [
            ("ms", 1, 1e3), ("us", 1, 1e6), ("µs", 1, 1e6), ("ns", 1, 1e9), ("s", 1, 1), ("m", 60, 1), ("h", 3600, 1),
        ]
        for (suffix, factor, divisor) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }),
                let value = Double(number), value.isFinite
            else { return nil }
            self.seconds = value * factor / divisor
            return
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self), number.isFinite {
            seconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = TimeSpan(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a duration (write it like 250ms, 2s or 1m)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        let magnitude = abs(seconds)
        if magnitude == 0 { return "0s" }
        if magnitude < 1e-3 { return Self.trim(seconds * 1e6) + "us" }
        if magnitude < 1 { return Self.trim(seconds * 1e3) + "ms" }
        return Self.trim(seconds) + "s"
    }

    private static func trim(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    public func scaled(by factor: Double) -> TimeSpan { TimeSpan(seconds: seconds * factor) }
}

extension InputError {
    /// Throws unless `span` is finite and within `0...longestSpan` seconds (or more than 0 with
    /// `positive`).
    public static func check(_ span: TimeSpan, _ path: String, positive: Bool = false) throws(InputError) {
        guard span.seconds.isFinite, positive ? span.seconds > 0 : span.seconds >= 0, span.seconds <= longestSpan
        else {
            throw InputError(
                path: path, reason: "must be \(positive ? "more than 0" : "0") to \(Int(longestSpan)) s (a day)")
        }
    }
}
