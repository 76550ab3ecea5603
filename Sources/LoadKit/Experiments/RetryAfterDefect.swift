import FakeFrontmail
import Foundation
import Frontmail

/// A Retry-After misread on purpose (the suite's tests of its own oracles), made by rewriting the
/// header before the SDK reads it: the SDK's own reading stays as it ships.
enum RetryAfterDefect: Sendable, Equatable {
    /// A fractional number of seconds loses its fraction (`1.5` waits 1 s).
    case truncatesFractions
    /// An HTTP date's fields are read in this zone instead of GMT: a client that reads them in
    /// local time, in a process whose local zone is this one.
    case datesInZone(TimeZone)

    /// The header that makes a correct reader wait what the broken one would. Read with the fake's
    /// own grammar; the fixed clock only places two-digit years, which neither the fake nor this
    /// rewrite writes.
    func rewrite(_ value: String) -> String {
        switch (self, RetryAfterMeant.reading(value, now: Date(timeIntervalSince1970: 1_785_542_400))) {
        case (.truncatesFractions, .seconds(let seconds)?):
            return String(Int(seconds.rounded(.towardZero)))
        case (.datesInZone(let zone), .instant(let date)?):
            return HTTPDate.string(from: date.addingTimeInterval(-Double(zone.secondsFromGMT(for: date))))
        default:
            return value
        }
    }
}

/// A transport whose answers carry the Retry-After `defect` rewrites.
struct RetryAfterRewritingTransport: FrontmailTransport {
    let base: any FrontmailTransport
    let defect: RetryAfterDefect

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await base.send(request)
        if let value = response.headers["Retry-After"] {
            response.headers.set(name: "Retry-After", value: defect.rewrite(value))
        }
        return response
    }
}
