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

    /// Why `text` cannot be a run id (it names folders and files): 1-64 letters, digits, `-` or
    /// `_`. Nil when it can.
    public static func problem(_ text: String) -> String? {
        guard (1...64).contains(text.count),
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            return "'\(text.prefix(80))' is not a run id: 1-64 letters, digits, - or _ (it names folders and files)"
        }
        return nil
    }
}
