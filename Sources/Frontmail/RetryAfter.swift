import Foundation

/// Parses a Retry-After header value (RFC 9110 §10.2.3, as the Frontmail SDKs read it).
///
/// `delay-seconds` (digits, and a fraction as the other Frontmail SDKs keep it) is seconds; an
/// HTTP date gives the seconds from `now`, never negative (a past date asks for an immediate
/// retry). Anything else is nil: the backoff applies. Every result lies in `0...maxSeconds`, so
/// converting it to `Int` is always safe. docs/retry-after.md lists each choice against RFC 9110
/// and the peers' readings.
package enum RetryAfter {
    /// The longest wait a value can ask for: RFC 9111 §1.2.2's ceiling for delta-seconds (2^31),
    /// far beyond any `maxRetryAfter`, and within `Int` on every platform.
    package static let maxSeconds: TimeInterval = 2_147_483_648

    private static let optionalWhitespace = CharacterSet(charactersIn: " \t")

    /// The seconds `value` asks for at `now` (nil: none).
    package static func parse(_ value: String?, now: Date) -> TimeInterval? {
        guard let value else { return nil }
        // RFC 9110's optional whitespace is SP and HTAB only: a no-break space is not trimmed.
        let trimmed = value.trimmingCharacters(in: optionalWhitespace)
        guard !trimmed.isEmpty else { return nil }
        if let seconds = seconds(trimmed) { return seconds }
        if let date = httpDate(trimmed, now: now) {
            let wait = date.timeIntervalSince(now)
            guard !wait.isNaN else { return nil }
            return min(maxSeconds, max(0, wait))
        }
        return nil
    }

    /// `digits(.digits)?`, at most `maxSeconds`. No sign (RFC 9110: `1*DIGIT`), no hex, exponent,
    /// `inf` or `nan`, which `Double(_:)` would accept.
    private static func seconds(_ text: String) -> TimeInterval? {
        var sawDigit = false
        var sawDot = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "."):
                guard !sawDot, sawDigit else { return nil }
                sawDot = true
            default: return nil
            }
        }
        guard sawDigit, text.utf8.last != UInt8(ascii: ".") else { return nil }
        // Only digits and one dot: Double(_:) reads it, at worst as +infinity for a huge value.
        guard let seconds = Double(text), !seconds.isNaN else { return nil }
        return min(maxSeconds, seconds)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The years an HTTP date may name: a year outside them is unreadable, as the peers hold.
    package static let years = 1900...9999

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
    /// and asctime (`Sun Nov  6 08:49:37 1994`), all in UTC. A two-digit year is the one with those
    /// digits not more than 50 years after `now` (RFC 9110 §5.6.7). The time is `H:M:S` (one or two
    /// digits each), the day exists in its month, the year lies in `years`.
    package static func httpDate(_ text: String, now: Date) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" })
        guard tokens.count <= 8 else { return nil }
        var numbers: [Substring] = []
        var month: Int?
        var time: (Int, Int, Int)?
        for token in tokens {
            if token.contains(":") {
                guard time == nil, let clock = clock(token) else { return nil }
                time = clock
            } else if isDigits(token) {
                numbers.append(token)
            } else if let index = months.firstIndex(of: token.lowercased()) {
                guard month == nil else { return nil }
                month = index + 1
            } else if token == "GMT" || token == "UTC" || weekday(token) {
                continue
            } else {
                return nil
            }
        }
        guard let month, let time, numbers.count == 2, numbers[0].utf8.count <= 2,
            numbers[1].utf8.count == 2 || numbers[1].utf8.count == 4,
            let day = Int(numbers[0]), var year = Int(numbers[1])
        else { return nil }
        if numbers[1].utf8.count == 2 { year = fullYear(twoDigits: year, month: month, day: day, time: time, now: now) }
        guard years.contains(year), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        return instant(year: year, month: month, day: day, time: time)
    }

    /// Seconds since 1970 in `Int64`: the product overflows a 32-bit `Int` after 2038.
    private static func instant(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date {
        let days = Int64(ISO8601.daysSinceEpoch(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(time.0 * 3600 + time.1 * 60 + time.2)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// RFC 9110 §5.6.7: the year ending in `twoDigits` whose date is more than 50 years before and
    /// not more than 50 years after `now` (a date further ahead is read in the century before).
    private static func fullYear(twoDigits: Int, month: Int, day: Int, time: (Int, Int, Int), now: Date) -> Int {
        let nowSeconds = now.timeIntervalSince1970.rounded(.down)
        guard nowSeconds.isFinite, abs(nowSeconds) < 1e11 else { return 1900 + twoDigits }
        let whole = Int(nowSeconds)
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let (nowYear, nowMonth, nowDay) = ISO8601.civilDate(daysSinceEpoch: days)
        let secondOfDay = time.0 * 3600 + time.1 * 60 + time.2
        let limit = (nowYear + 50, nowMonth, nowDay, whole - days * 86_400)
        var year = nowYear - nowYear % 100 + twoDigits
        if (year, month, day, secondOfDay) > limit { year -= 100 }
        if (year + 100, month, day, secondOfDay) <= limit { year += 100 }
        return year
    }

    /// `HH:MM:SS`, each one or two ASCII digits, in range (a leap second allowed).
    private static func clock(_ token: Substring) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.utf8.count <= 2 && isDigits($0) }),
            let h = Int(parts[0]), let m = Int(parts[1]), let s = Int(parts[2]),
            (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        return (h, m, s)
    }

    private static func isDigits(_ token: Substring) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func weekday(_ token: Substring) -> Bool {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        guard token.utf8.count <= 9 else { return false }
        let lower = token.lowercased()
        return names.contains { lower.hasPrefix($0) } && lower.allSatisfy(\.isLetter)
    }
}
