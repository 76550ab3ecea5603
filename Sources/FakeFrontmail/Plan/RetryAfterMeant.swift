import Foundation

/// The wait a Retry-After the fake wrote asks for, known from the plan (a number of seconds as the
/// plan gave it, or the instant an HTTP date names) or, for text the plan spelled itself, read by
/// the fake's own reading of the wire contract (§4.4). Never computed with the SDK's parser: it is
/// the oracle the client's waits are judged against.
public enum RetryAfterMeant: Sendable, Hashable {
    /// A number of seconds (negative asks for an immediate retry).
    case seconds(Double)
    /// An HTTP date: the instant it names (whole seconds).
    case instant(Date)

    /// The wait in seconds when the answer leaves at `now`: never negative (a past date or a
    /// negative number asks for an immediate retry).
    public func seconds(at now: Date) -> Double {
        switch self {
        case .seconds(let value): return max(0, value)
        case .instant(let date): return max(0, date.timeIntervalSince(now))
        }
    }

    /// What a header value means, read by the fake's own grammar: `[+-]digits[.digits]` is seconds;
    /// an IMF-fixdate, RFC 850 or asctime date (GMT) is its instant; anything else (nil) asks for
    /// nothing, and the client's backoff applies.
    public static func reading(_ text: String) -> RetryAfterMeant? {
        let value = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if let seconds = number(value) { return .seconds(seconds) }
        if let date = httpDate(value) { return .instant(date) }
        return nil
    }

    private static func number(_ text: String) -> Double? {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            bytes = bytes.dropFirst()
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.count == 1 || !parts[1].isEmpty,
            parts.allSatisfy({ $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } })
        else { return nil }
        return Double(text).flatMap { $0.isFinite ? $0 : nil }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
    private static func httpDate(_ text: String) -> Date? {
        let words = text.lowercased().split(whereSeparator: { " ,-".contains($0) })
        guard (4...6).contains(words.count), let first = words.first,
            weekdays.contains(where: { first.hasPrefix($0) })
        else { return nil }
        var rest = Array(words.dropFirst())
        if rest.last == "gmt" { rest.removeLast() }
        guard rest.count == 4 else { return nil }
        // asctime puts the month first and the year last.
        let asctime = months.contains(String(rest[0]))
        let dayText = asctime ? rest[1] : rest[0]
        let monthText = asctime ? rest[0] : rest[1]
        let yearText = asctime ? rest[3] : rest[2]
        let timeText = asctime ? rest[2] : rest[3]
        guard let month = months.firstIndex(of: String(monthText)).map({ $0 + 1 }), let day = Int(dayText),
            var year = Int(yearText)
        else { return nil }
        if yearText.count == 2 { year += year < 70 ? 2000 : 1900 }
        let clock = timeText.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...CivilCalendar.daysIn(month: month, year: year)).contains(day), (1...9999).contains(year)
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}

extension RetryAfterSpec {
    /// What the header written at `now` means.
    public func meaning(now: Date) -> RetryAfterMeant? {
        switch self {
        case .seconds(let value): return .seconds(value)
        case .raw(let text): return RetryAfterMeant.reading(text)
        case .httpDateIn(let span):
            // The header names whole seconds (HTTPDate writes the second the instant falls in).
            return .instant(
                Date(timeIntervalSince1970: now.addingTimeInterval(span.seconds).timeIntervalSince1970.rounded(.down)))
        }
    }
}
