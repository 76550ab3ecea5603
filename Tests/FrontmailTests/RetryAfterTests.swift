import Foundation
import Testing

@testable import Frontmail

@Suite("Retry-After parsing (§4.4, §7.23)")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "numbers are seconds with fractions kept, at most 2^31",
        arguments: [
            ("5", 5.0), ("0", 0.0), ("1.5", 1.5), (" 2 ", 2.0), ("3600", 3600.0), ("0.25", 0.25), ("007", 7.0),
            ("2147483648", 2_147_483_648.0), ("2147483649", 2_147_483_648.0),
            (String(repeating: "9", count: 400), 2_147_483_648.0),
            ("1" + String(repeating: "0", count: 5000), 2_147_483_648.0),
        ])
    func numbers(text: String, expected: Double) {
        #expect(RetryAfter.parse(text, now: Self.now) == expected)
    }

    @Test(
        "nil, empty and garbage give none",
        arguments: [
            nil, "", "nonsense", "0x10", "1e3", "inf", "nan", "1.", ".5", "5s", "--1", "Sun, 99 Foo 2026 10:00:00 GMT",
            // RFC 9110 §10.2.3: delay-seconds is 1*DIGIT, so a sign makes the value unreadable.
            "-3", "-1", "+1", "-0", "- 1",
            // RFC 9110's optional whitespace is SP and HTAB: a no-break or figure space is not trimmed.
            "\u{00A0}2", "2\u{00A0}", "\u{2007}1",
            // Digits that are not ASCII.
            "\u{0661}\u{0662}", "\u{FF15}",
        ])
    func none(text: String?) {
        #expect(RetryAfter.parse(text, now: Self.now) == nil)
    }

    @Test("an HTTP date 10 s ahead gives more than 8 and at most 10 seconds; a past date gives 0")
    func httpDates() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let ahead = try #require(
            RetryAfter.parse(formatter.string(from: Self.now.addingTimeInterval(10)), now: Self.now))
        #expect(ahead > 8 && ahead <= 10)
        #expect(RetryAfter.parse(formatter.string(from: Self.now.addingTimeInterval(-60)), now: Self.now) == 0)
    }

    @Test(
        "the three HTTP date formats of RFC 9110 parse to the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        ])
    func dateFormats(text: String) {
        #expect(RetryAfter.httpDate(text, now: Self.now) == Date(timeIntervalSince1970: 784_111_777))
    }
}

@Suite("Retry-After: hostile HTTP dates")
struct RetryAfterHostileDateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "a year outside 1900-9999 is unreadable, in every form (a huge one once trapped on Int overflow)",
        arguments: [
            "Sun, 06 Nov 2999999999999 08:49:37 GMT", "Sunday, 06-Nov-2999999999999 08:49:37 GMT",
            "Sun Nov  6 08:49:37 2999999999999", "Sun, 06 Nov 300000000000 08:49:37 GMT",
            "Sun, 06 Nov 99999999999999999999999 08:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT",
            "Sun, 06 Nov 1899 08:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "09 Feb 19942632 22:23:32 GMT",
            "Wed, 09 Feb 1994834 22:23:32 GMT",
        ])
    func outOfRangeYears(text: String) {
        #expect(RetryAfter.httpDate(text, now: Self.now) == nil)
        #expect(RetryAfter.parse(text, now: Self.now) == nil)
    }

    @Test("the last and first readable years give a finite wait within 2^31 s, or 0")
    func yearBounds() {
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now) == RetryAfter.maxSeconds)
        #expect(RetryAfter.parse("Mon, 01 Jan 1900 00:00:00 GMT", now: Self.now) == 0)
        let last = RetryAfter.httpDate("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now)
        #expect(last == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test(
        "fields out of range or of the wrong width are unreadable",
        arguments: [
            "Sun, 31 Apr 2024 08:49:37 GMT", "Sun, 30 Feb 2024 08:49:37 GMT", "Sun, 29 Feb 2023 08:49:37 GMT",
            "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 08:49:61 GMT", "Sun Nov  6 008:09:37 1994",
            "Sun, 06 Nov 1994 08:049:37 GMT",
            "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 +8:49:37 GMT",
            "Sun, 06 Nov 994 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT 12", "Sun, 06 Nov Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37:01 GMT", "Sun, \u{0660}6 Nov 1994 08:49:37 GMT",
        ])
    func badFields(text: String) {
        #expect(RetryAfter.httpDate(text, now: Self.now) == nil)
    }

    @Test("29 February is read in a leap year (2024, 2000) and not in 1900")
    func leapDays() {
        #expect(
            RetryAfter.httpDate("Thu, 29 Feb 2024 00:00:00 GMT", now: Self.now)
                == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(
            RetryAfter.httpDate("Tue, 29 Feb 2000 00:00:00 GMT", now: Self.now)
                == Date(timeIntervalSince1970: 951_782_400))
        #expect(RetryAfter.httpDate("Thu, 29 Feb 1900 00:00:00 GMT", now: Self.now) == nil)
    }

    /// RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is the one a century before.
    @Test(
        "a two-digit year is the one not more than 50 years ahead of now",
        arguments: [
            // now, the header, the year it names
            (1_785_542_400.0, "Thursday, 01-Jan-70 00:00:00 GMT", 2070),  // 2026-08-01: 43 years ahead
            (1_785_542_400.0, "Friday, 01-Jan-77 00:00:00 GMT", 1977),  // 50.4 years ahead: the past
            (1_785_542_400.0, "Saturday, 01-Aug-76 00:00:00 GMT", 2076),  // exactly 50 years: not more
            (1_785_542_400.0, "Saturday, 01-Aug-76 00:00:01 GMT", 1976),  // one second more than 50
            (1_785_542_400.0, "Sunday, 06-Nov-94 08:49:37 GMT", 1994),
            (1_785_542_400.0, "Monday, 01-Jan-00 00:00:00 GMT", 2000),
            (4_070_908_800.0, "Monday, 01-Jan-00 00:00:00 GMT", 2100),  // at 2099-01-01: 1 year ahead
            (4_070_908_800.0, "Monday, 01-Jan-49 00:00:00 GMT", 2149),  // at 2099: 50 years ahead
            (4_070_908_800.0, "Monday, 01-Jan-50 00:00:00 GMT", 2050),
        ])
    func fiftyYearRule(now: Double, text: String, year: Int) throws {
        let date = try #require(RetryAfter.httpDate(text, now: Date(timeIntervalSince1970: now)))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "GMT"))
        #expect(calendar.component(.year, from: date) == year)
    }

    @Test("a kilobytes-long value or token is unreadable, and reading it stays linear")
    func longValues() {
        #expect(
            RetryAfter.parse("Sun, " + String(repeating: "0", count: 100_000) + " Nov 1994 08:49:37 GMT", now: Self.now)
                == nil)
        #expect(RetryAfter.parse(String(repeating: "Sun, ", count: 20_000), now: Self.now) == nil)
        #expect(RetryAfter.parse(String(repeating: "1:", count: 50_000), now: Self.now) == nil)
        #expect(RetryAfter.parse(String(repeating: " ", count: 100_000) + "5", now: Self.now) == 5)
    }

    @Test("a clock far outside the years still reads a two-digit year without trapping")
    func extremeClocks() {
        for seconds in [-1e18, 1e18, .infinity, -.infinity, .nan, 0, -1] {
            _ = RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: seconds))
            _ = RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: seconds))
        }
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: .nan)) == nil)
    }
}
