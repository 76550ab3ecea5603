import Foundation
import Frontmail

/// A Retry-After misread on purpose, made by rewriting the header before the SDK reads it: the
/// SDK's own reading stays as it ships, and a correct reader of the rewritten header waits what
/// the broken one would have waited.
package enum RetryAfterDefect: Sendable, Equatable {
    /// A fractional number of seconds loses its fraction (`1.5` waits 1 s).
    case truncatesFractions
    /// An IMF-fixdate's fields are read in this zone instead of GMT: a client that reads them in
    /// local time, in a process whose local zone is this one.
    case datesInZone(TimeZone)
    /// A number of seconds is read as milliseconds (`61` waits 61 ms): no limit ever binds.
    case secondsAsMilliseconds

    /// The header that makes a correct reader wait what the broken one would; any other spelling
    /// is left as it is.
    package func rewrite(_ value: String) -> String {
        switch self {
        case .truncatesFractions:
            let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let whole = parts.first, !whole.isEmpty, !parts[1].isEmpty,
                parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) })
            else { return value }
            return String(whole.drop { $0 == "0" }.isEmpty ? "0" : whole.drop { $0 == "0" })
        case .secondsAsMilliseconds:
            guard !value.isEmpty, value.allSatisfy({ $0.isASCIIDigit || $0 == "." }), let seconds = Double(value),
                seconds.isFinite
            else { return value }
            return String(seconds / 1000)
        case .datesInZone(let zone):
            guard let date = Self.fixdate().date(from: value) else { return value }
            return Self.fixdate().string(from: date.addingTimeInterval(-Double(zone.secondsFromGMT(for: date))))
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, read and written in GMT whatever the process's zone.
    private static func fixdate() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A transport whose answers carry the Retry-After `defect` rewrites.
package struct RetryAfterRewritingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    package let defect: RetryAfterDefect

    package init(base: any FrontmailTransport, defect: RetryAfterDefect) {
        self.base = base
        self.defect = defect
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await base.send(request)
        if let value = response.headers["Retry-After"] {
            response.headers.set(name: "Retry-After", value: defect.rewrite(value))
        }
        return response
    }
}
