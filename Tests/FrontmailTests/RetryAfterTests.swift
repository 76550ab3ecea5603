import Foundation
import Testing

@testable import Frontmail

@Suite("Retry-After parsing (§4.4, §7.23)")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "numbers are seconds with fractions kept; negatives become 0",
        arguments: [
            ("5", 5.0), ("0", 0.0), ("1.5", 1.5), (" 2 ", 2.0), ("-3", 0.0), ("3600", 3600.0), ("0.25", 0.25),
        ])
    func numbers(text: String, expected: Double) {
        #expect(RetryAfter.parse(text, now: Self.now) == expected)
    }

    @Test(
        "nil, empty and garbage give none",
        arguments: [
            nil, "", "nonsense", "0x10", "1e3", "inf", "nan", "1.", ".5", "5s", "--1", "Sun, 99 Foo 2026 10:00:00 GMT",
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
        #expect(RetryAfter.httpDate(text) == Date(timeIntervalSince1970: 784_111_777))
    }
}
