import Foundation

/// The wait a Retry-After the fake wrote asks for, known from the plan (a number of seconds as the
/// plan gave it, or the instant an HTTP date names) or, for text the plan spelled itself, read by
/// the fake's own reading of the wire contract (§4.4). Never computed with the SDK's parser: it is
/// the oracle the client's waits are judged against.
public enum RetryAfterMeant: Sendable, Hashable {
    /// A number of seconds (never negative: a signed number is not delay-seconds).
    case seconds(Double)
    /// An HTTP date: the instant it names (whole seconds).
    case instant(Date)

    /// The longest wait a number means: 2^31 s (RFC 9111 §1.2.2's ceiling for delta-seconds).
    public static let maxSeconds = 2_147_483_648.0

    /// The wait in seconds when the answer leaves at `now`: never negative (a past date asks for
    /// an immediate retry).
    public func seconds(at now: Date) -> Double {
        switch self {
        case .seconds(let value): return max(0, value)
        case .instant(let date): return max(0, date.timeIntervalSince(now))
        }
    }

    /// What a header value written at `now` means, read by the fake's own grammar
    /// (docs/retry-after.md): `digits[.digits]` is seconds, at most 2^31 (a sign makes it
    /// unreadable: RFC 9110's `1*DIGIT`); an IMF-fixdate, RFC 850 or asctime date (GMT, `H:M:S` of
    /// one or two digits each, a year in 1900-9999, a two-digit year the one not more than 50 years
    /// after `now`) is its instant; anything else (nil) asks for nothing, and the client's backoff
    /// applies.
    public static func reading(_ text: String, now: Date) -> RetryAfterMeant? {
        let value = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if let seconds = number(value) { return .seconds(seconds) }
        if let date = httpDate(value, now: now) { return .instant(date) }
        return nil
    }

    private static func number(_ text: String) -> Double? {
        let bytes = Substring(text).utf8[...]
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.count == 1 || !parts[1].isEmpty,
            parts.allSatisfy({ $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } })
        else { return nil }
        // Digits only: Double reads any length, a huge one as infinity; a wait over 2^31 s is 2^31
        // (RFC 9111 §1.2.2's ceiling, docs/retry-after.md).
        return Double(text).map { min($0, maxSeconds) }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
    private static func httpDate(_ text: String, now: Date) -> Date? {
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
        let digits = { (word: Substring, widths: [Int]) -> Int? in
            widths.contains(word.count) && word.allSatisfy { ("0"..."9").contains($0) } ? Int(word) : nil
        }
        let clock = timeText.split(separator: ":", omittingEmptySubsequences: false).map { digits($0, [1, 2]) }
        guard let month = months.firstIndex(of: String(monthText)).map({ $0 + 1 }), let day = digits(dayText, [1, 2]),
            var year = digits(yearText, [2, 4]), clock.count == 3, let hour = clock[0], let minute = clock[1],
            let second = clock[2], (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let secondOfDay = hour * 3600 + minute * 60 + second
        if yearText.count == 2 {
            year = latestYear(endingIn: year, month: month, day: day, secondOfDay: secondOfDay, notAfter: now)
        }
        guard (1900...9999).contains(year), (1...CivilCalendar.daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        return instant(year: year, month: month, day: day, secondOfDay: secondOfDay)
    }

    private static func instant(year: Int, month: Int, day: Int, secondOfDay: Int) -> Date {
        Date(
            timeIntervalSince1970: Double(CivilCalendar.days(year: year, month: month, day: day) * 86_400 + secondOfDay)
        )
    }

    /// RFC 9110 §5.6.7: of the years ending in `twoDigits`, the latest whose date is not more than 50
    /// years after `now` (50 years after: the same day and time of `now`'s year + 50).
    private static func latestYear(endingIn twoDigits: Int, month: Int, day: Int, secondOfDay: Int, notAfter now: Date)
        -> Int
    {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e11 else { return 1900 + twoDigits }
        let dayNumber = Int((seconds / 86_400).rounded(.down))
        let today = CivilCalendar.date(daysSinceEpoch: dayNumber)
        guard (1850...9900).contains(today.year) else { return 1900 + twoDigits }
        let limit =
            Double((CivilCalendar.days(year: today.year + 50, month: today.month, day: today.day)) * 86_400)
            + (seconds - Double(dayNumber) * 86_400)
        var year = today.year + 50 - (today.year + 50 - twoDigits) % 100
        let sameDay = min(day, CivilCalendar.daysIn(month: month, year: year))
        if instant(year: year, month: month, day: sameDay, secondOfDay: secondOfDay).timeIntervalSince1970 > limit {
            year -= 100
        }
        return year
    }
}

extension RetryAfterSpec {
    /// What the header written at `now` means.
    public func meaning(now: Date) -> RetryAfterMeant? {
        switch self {
        // A negative number is written with its sign, which makes it unreadable: the backoff applies.
        case .seconds(let value): return value < 0 ? nil : .seconds(value)
        case .raw(let text): return RetryAfterMeant.reading(text, now: now)
        case .httpDateIn(let span):
            // The header names whole seconds (HTTPDate writes the second the instant falls in).
            return .instant(
                Date(timeIntervalSince1970: now.addingTimeInterval(span.seconds).timeIntervalSince1970.rounded(.down)))
        }
    }
}
