import Foundation

/// Parses a Retry-After header value (RFC 9110 §10.2.3, as the Frontmail SDKs read it).
///
/// A number is seconds (fractions kept); otherwise an HTTP date gives the seconds from `now`.
/// Negative or past values become 0. Anything else is nil (use the backoff).
package enum RetryAfter {
    /// The seconds `value` asks for at `now` (nil: none). `defect` breaks the reading on purpose
    /// (the suite's tests of its own oracles); nil in every client.
    package static func parse(_ value: String?, now: Date, defect: RetryAfterDefect? = nil) -> TimeInterval? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let seconds = seconds(trimmed) {
            return max(0, defect == .truncatesFractions ? seconds.rounded(.towardZero) : seconds)
        }
        if var date = httpDate(trimmed) {
            if case .datesInZone(let zone) = defect { date -= TimeInterval(zone.secondsFromGMT(for: date)) }
            return max(0, date.timeIntervalSince(now))
        }
        return nil
    }

    /// `-?digits(.digits)?`; rejects hex, exponents, `inf` and `nan`, which `Double(_:)` would accept.
    private static func seconds(_ text: String) -> TimeInterval? {
        var sawDigit = false
        var sawDot = false
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "."):
                guard !sawDot, sawDigit else { return nil }
                sawDot = true
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard offset == 0 else { return nil }
            default: return nil
            }
        }
        guard sawDigit, text.utf8.last != UInt8(ascii: ".") else { return nil }
        guard let seconds = Double(text), seconds.isFinite else { return nil }
        return seconds
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
    /// and asctime (`Sun Nov  6 08:49:37 1994`), all in UTC.
    package static func httpDate(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" })
        var numbers: [Int] = []
        var month: Int?
        var time: (Int, Int, Int)?
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":", omittingEmptySubsequences: false)
                guard time == nil, parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]),
                    let s = Int(parts[2]),
                    (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
                else { return nil }
                time = (h, m, s)
            } else if let number = Int(token), token.allSatisfy(\.isASCII) {
                numbers.append(number)
            } else if let index = months.firstIndex(of: token.lowercased()) {
                guard month == nil else { return nil }
                month = index + 1
            } else if token == "GMT" || token == "UTC" || weekday(token) {
                continue
            } else {
                return nil
            }
        }
        guard let month, let time, numbers.count == 2 else { return nil }
        let day = numbers[0]
        var year = numbers[1]
        if year < 100 { year += year < 70 ? 2000 : 1900 }
        guard (1...31).contains(day), year >= 1900 else { return nil }
        let days = ISO8601.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.0 * 3600 + time.1 * 60 + time.2
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func weekday(_ token: Substring) -> Bool {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        let lower = token.lowercased()
        return names.contains { lower.hasPrefix($0) } && lower.allSatisfy(\.isLetter)
    }
}
