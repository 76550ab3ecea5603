import Foundation

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) without a formatter object.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func string(from date: Date) -> String {
        // Years 1-9999 (four digits); plans cannot reach past them, and nothing here may trap.
        let seconds = Int(min(253_402_300_799, max(-62_135_596_800, date.timeIntervalSince1970.rounded(.down))))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// `2026-12-05T00:29:05Z` (UTC, whole seconds): the timestamps of the fake's answers, written
    /// with the fake's own calendar.
    public static func iso8601(from date: Date) -> String {
        let seconds = Int(min(253_402_300_799, max(-62_135_596_800, date.timeIntervalSince1970.rounded(.down))))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
