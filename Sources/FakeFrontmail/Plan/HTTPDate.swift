import Foundation
import Frontmail

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) without a formatter object.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func string(from date: Date) -> String {
        // Years 1-9999 (four digits); plans cannot reach past them, and nothing here may trap.
        let seconds = Int(min(253_402_300_799, max(-62_135_596_800, date.timeIntervalSince1970.rounded(.down))))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = ISO8601.civilDate(daysSinceEpoch: days)
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) GMT"
    }
}
