/// Days since 1970-01-01 and proleptic Gregorian dates, both ways: the fake's own calendar, so the
/// dates it writes and the instants it means share no code with the SDK that reads them. It walks
/// whole 400-year cycles (146,097 days each), then years, then months, which is a different method
/// from the SDK's closed-form days-from-civil, so one mistake cannot hide in both.
enum CivilCalendar {
    /// Days in 400 Gregorian years: the calendar repeats after them.
    private static let cycleDays = 146_097

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The date of day `days` after 1970-01-01 (negative: before it).
    static func date(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        // Floor division: whole cycles before the day, and the day's place in its cycle.
        let cycles = days >= 0 ? days / cycleDays : -((-days + cycleDays - 1) / cycleDays)
        var remaining = days - cycles * cycleDays
        var year = 1970 + 400 * cycles
        while remaining >= (isLeap(year) ? 366 : 365) {
            remaining -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month = 1
        while remaining >= daysIn(month: month, year: year) {
            remaining -= daysIn(month: month, year: year)
            month += 1
        }
        return (year, month, remaining + 1)
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (month 1-12, day 1-31).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let offset = year - 1970
        let cycles = offset >= 0 ? offset / 400 : -((-offset + 399) / 400)
        var total = cycles * cycleDays
        for earlier in (1970 + 400 * cycles)..<year {
            total += isLeap(earlier) ? 366 : 365
        }
        for earlier in 1..<month {
            total += daysIn(month: earlier, year: year)
        }
        return total + day - 1
    }

    /// The number of days in `month` of `year`.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
