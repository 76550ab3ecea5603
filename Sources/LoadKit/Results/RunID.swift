import Foundation

/// The one run-id format of every result the suite writes: the UTC start time,
/// `yyyyMMdd'T'HHmmss'Z'` (sorts by time, safe in file names).
public enum RunID {
    public static func make(at date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
