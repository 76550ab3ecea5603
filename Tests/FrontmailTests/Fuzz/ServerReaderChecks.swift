// Compiled twice: into FrontmailTests (the regression tests over Fuzz/Corpus and Fuzz/Crashes) and,
// with the SDK's sources and -D FRONTMAIL_FUZZ, into each libFuzzer target (scripts/fuzz.sh).
import Foundation

#if !FRONTMAIL_FUZZ
    @testable import Frontmail
#endif

/// What the SDK may make of bytes a server sent, one function per reader. Each returns nil when the
/// reading is one the contract allows (a value, or nil / `invalid_response` for what it cannot
/// read) and otherwise says what is wrong. A trap, a hang or unbounded memory is caught by the
/// fuzzer (and by the test process) itself.
enum ServerReaderChecks {
    /// The targets, by the name scripts/fuzz.sh and Fuzz/Corpus/<name>/ use.
    static let targets: [String: @Sendable ([UInt8]) -> String?] = [
        "retry-after": retryAfter, "send-answer": sendAnswer, "error-answer": errorAnswer,
        "status-body": statusBody, "public-config": publicConfig, "headers": headers,
    ]

    /// Two clocks: a recent one, and one near the end of the readable years.
    static let clocks = [Date(timeIntervalSince1970: 1_785_542_400), Date(timeIntervalSince1970: 253_402_000_000)]

    /// A Retry-After value: nil, or a wait in 0...2^31 s; a date's instant lies in 1900-9999.
    static func retryAfter(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for now in clocks {
            if let wait = RetryAfter.parse(text, now: now), !(wait >= 0 && wait <= 2_147_483_648) {
                return "Retry-After \(text.debugDescription) read as a wait of \(wait) s"
            }
            if let date = RetryAfter.httpDate(text, now: now),
                !(-2_208_988_800...253_402_300_799).contains(date.timeIntervalSince1970)
            {
                return "HTTP date \(text.debugDescription) read as \(date.timeIntervalSince1970) s since 1970"
            }
        }
        return nil
    }

    /// A 2xx body: a result with a message id, or `invalid_response`.
    static func sendAnswer(_ bytes: [UInt8]) -> String? {
        let response = FrontmailHTTPResponse(status: 202, body: Data(bytes))
        do {
            let result = try Frontmail.parseSendResult(response)
            return result.messageID.isEmpty ? "a send result with an empty message id" : nil
        } catch {
            return error.code == .invalidResponse ? nil : "a 2xx body failed with \(error.code.rawValue)"
        }
    }

    /// A non-2xx answer (status from the first two bytes, a Retry-After up to the first newline,
    /// the rest the body): an error with that status and a code, retried exactly for 429 and 5xx,
    /// its Retry-After within 0...2^31 s.
    static func errorAnswer(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 2 else { return nil }
        let status = Int(bytes[0]) << 8 | Int(bytes[1])
        let rest = bytes.dropFirst(2)
        let newline = rest.firstIndex(of: 10) ?? rest.endIndex
        var headers = FrontmailHTTPHeaders()
        headers.add(name: "Retry-After", value: String(decoding: rest[..<newline], as: UTF8.self))
        let body = Data(rest[newline...].dropFirst())
        let response = FrontmailHTTPResponse(status: status, headers: headers, body: body)
        let error = Frontmail.responseError(response, now: clocks[0])
        if error.status != status { return "status \(status) became \(String(describing: error.status))" }
        if error.code.rawValue.isEmpty { return "an error without a code" }
        if let wait = error.retryAfter, !(wait >= 0 && wait <= 2_147_483_648) { return "retryAfter \(wait)" }
        let retried = status == 429 || (500...599).contains(status)
        if Frontmail.isRetryable(error) != retried { return "status \(status): retried is \(!retried)" }
        return nil
    }

    /// A status body: a status with a message id, or `invalid_response`.
    static func statusBody(_ bytes: [UInt8]) -> String? {
        let response = FrontmailHTTPResponse(status: 200, body: Data(bytes))
        do {
            _ = try Frontmail.parseMessageStatus(response)
            return nil
        } catch {
            return error.code == .invalidResponse ? nil : "a status body failed with \(error.code.rawValue)"
        }
    }

    /// The public config: a config, or `invalid_response`.
    static func publicConfig(_ bytes: [UInt8]) -> String? {
        let response = FrontmailHTTPResponse(status: 200, body: Data(bytes))
        do {
            let config = try PublicConfig.parse(response)
            return config.mobileSiteKey == "" ? "an empty site key kept" : nil
        } catch {
            return error.code == .invalidResponse ? nil : "the public config failed with \(error.code.rawValue)"
        }
    }

    /// Header lookup: fields split from lines `name:value`; each name finds the first field whose
    /// name equals it, ignoring ASCII case only.
    static func headers(_ bytes: [UInt8]) -> String? {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).prefix(64)
        var headers = FrontmailHTTPHeaders()
        var fields: [(name: [UInt8], value: String)] = []
        for line in lines {
            let colon = line.firstIndex(of: 58) ?? line.endIndex
            let name = Array(line[..<colon])
            let value = String(decoding: line[colon...].dropFirst(), as: UTF8.self)
            headers.add(name: String(decoding: name, as: UTF8.self), value: value)
            fields.append((Array(String(decoding: name, as: UTF8.self).utf8), value))
        }
        func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
        for field in fields {
            let name = String(decoding: field.name, as: UTF8.self)
            let expected = fields.first {
                $0.name.count == field.name.count && zip($0.name, field.name).allSatisfy { lower($0) == lower($1) }
            }
            if headers[name] != expected?.value { return "lookup of \(name.debugDescription) gave the wrong field" }
        }
        return nil
    }
}
