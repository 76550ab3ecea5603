import Foundation
import TestSupport
import Testing

@testable import FakeFrontmail

/// The fake's own account of the Retry-After it wrote: the oracle of every Retry-After verdict,
/// checked here against Foundation's calendar, never against the SDK's parser.
@Suite("Retry-After as the fake meant it: its own reading and calendar", .onItsOwnThread)
struct RetryAfterMeantTests {
    static let now = Date(timeIntervalSince1970: 1_785_542_400)  // 2026-08-01

    @Test(
        "numbers are seconds as written; anything that is not a plain decimal asks for nothing",
        arguments: [
            ("2", 2.0), ("1.5", 1.5), ("32.1", 32.1), ("0", 0), (" 7\t", 7),
            ("0.015", 0.015),
            // Past 2^31 s (RFC 9111 §1.2.2), however many digits.
            ("2147483649", 2_147_483_648.0), (String(repeating: "1", count: 4_000), 2_147_483_648.0),
        ])
    func numbers(text: String, seconds: Double) {
        #expect(RetryAfterMeant.reading(text, now: Self.now) == .seconds(seconds))
    }

    @Test(
        "not a number and not a date: nil",
        arguments: [
            "", "soon", "1e3", ".5", "5.", "inf", "nan", "0x10", "1.2.3", "--1", "Sun, 31 Feb 1994 08:49:37 GMT",
            // A sign is not delay-seconds (RFC 9110 §10.2.3: 1*DIGIT).
            "-3", "+4", "-0", "\u{00A0}2",
            // Years outside 1900-9999, minutes of three digits.
            "Sun, 06 Nov 1899 08:49:37 GMT", "Sun, 06 Nov 2999999999999 08:49:37 GMT", "Sun, 06 Nov 1994 08:049:37 GMT",
        ])
    func nothing(text: String) {
        #expect(RetryAfterMeant.reading(text, now: Self.now) == nil)
    }

    @Test("the three HTTP date forms name the same instant (RFC 9110 §5.6.7)")
    func dates() {
        let instant = RetryAfterMeant.instant(Date(timeIntervalSince1970: 784_111_777))
        #expect(RetryAfterMeant.reading("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == instant)
        #expect(RetryAfterMeant.reading("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == instant)
        #expect(RetryAfterMeant.reading("Sun Nov  6 08:49:37 1994", now: Self.now) == instant)
        let now = Date(timeIntervalSince1970: 784_111_770.25)
        #expect(instant.seconds(at: now) == 6.75)
        #expect(instant.seconds(at: now.addingTimeInterval(60)) == 0)
        #expect(RetryAfterSpec.seconds(-3).meaning(now: now) == nil)
    }

    /// RFC 9110 §5.6.7, checked against Foundation's calendar: the year is the latest one ending in
    /// the two digits whose date is not more than 50 years after now.
    @Test(
        "a two-digit year is read by the 50-year rule",
        arguments: [
            (1_785_542_400.0, "Thursday, 01-Jan-70 00:00:00 GMT", 2070),
            (1_785_542_400.0, "Sunday, 01-Aug-76 00:00:00 GMT", 2076),
            (1_785_542_400.0, "Sunday, 01-Aug-76 00:00:01 GMT", 1976),
            (1_785_542_400.0, "Sunday, 06-Nov-94 08:49:37 GMT", 1994),
            (4_070_908_800.0, "Saturday, 01-Jan-00 00:00:00 GMT", 2100),
            (4_070_908_800.0, "Saturday, 01-Jan-50 00:00:00 GMT", 2050),
        ])
    func fiftyYears(now: Double, text: String, year: Int) throws {
        guard case .instant(let date)? = RetryAfterMeant.reading(text, now: Date(timeIntervalSince1970: now)) else {
            Issue.record("\(text) is not a date")
            return
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        #expect(calendar.component(.year, from: date) == year)
    }

    @Test("a plan's values mean what they say: seconds as given, a date's whole second, raw text read")
    func specs() {
        let now = Date(timeIntervalSince1970: 1_800_000_000.6)
        #expect(RetryAfterSpec.seconds(45.67).meaning(now: now) == .seconds(45.67))
        #expect(
            RetryAfterSpec.httpDateIn(TimeSpan(seconds: 2)).meaning(now: now)
                == .instant(Date(timeIntervalSince1970: 1_800_000_002)))
        #expect(RetryAfterSpec.raw("soon").meaning(now: now) == nil)
        // What the fake writes for a date is what it means.
        let header = RetryAfterSpec.httpDateIn(TimeSpan(seconds: 2)).headerValue(now: now)
        #expect(RetryAfterMeant.reading(header, now: now) == .instant(Date(timeIntervalSince1970: 1_800_000_002)))
    }

    @Test("the fake's calendar agrees with Foundation's Gregorian calendar in UTC, day by day, years 1600-9999")
    func calendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var random = SystemRandomNumberGenerator()
        // Foundation's calendar is Julian before October 1582: compared from 1600 on.
        let days =
            [-135_140, -1, 0, 59, 60, 365, 10_956, 11_016, 2_932_896]
            + (0..<3000).map { _ in
                Int.random(in: -135_140...2_932_896, using: &random)
            }
        for day in days {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let civil = CivilCalendar.date(daysSinceEpoch: day)
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day, "day \(day)")
            #expect(CivilCalendar.days(year: civil.year, month: civil.month, day: civil.day) == day)
            #expect(CivilCalendar.daysIn(month: civil.month, year: civil.year) >= civil.day)
        }
    }

    @Test("every date the fake writes reads back as its whole second; its ISO-8601 matches Foundation's")
    func roundTrip() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)!
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let seconds = Double.random(in: -2_208_988_800...253_402_300_799, using: &random)
            let date = Date(timeIntervalSince1970: seconds)
            let whole = Date(timeIntervalSince1970: seconds.rounded(.down))
            #expect(
                RetryAfterMeant.reading(HTTPDate.string(from: date), now: Self.now) == .instant(whole), "\(seconds)")
            #expect(HTTPDate.iso8601(from: date) == formatter.string(from: whole), "\(seconds)")
        }
    }

    @Test("fuzzed header text never traps; a reading is finite seconds or an instant")
    func fuzz() {
        let alphabet = Array("0123456789 .,:-+eEinfaGMTSunNovDecJanFriday\t")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = String(
                (0..<Int.random(in: 0...32, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            switch RetryAfterMeant.reading(text, now: Self.now) {
            case .seconds(let value)?: #expect(value.isFinite, "\(text)")
            case .instant(let date)?: #expect(date.timeIntervalSince1970.isFinite, "\(text)")
            case nil: break
            }
        }
        for header in ["Sun, 06 Nov 1994 08:49:37 GMT", "12.5", "Sun Nov  6 08:49:37 1994"] {
            let bytes = Array(header.utf8)
            for _ in 0..<2000 {
                var mutated = bytes
                mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(in: 32...126, using: &random)
                _ = RetryAfterMeant.reading(String(decoding: mutated, as: UTF8.self), now: Self.now)
            }
        }
    }
}
