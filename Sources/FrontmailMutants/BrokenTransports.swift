import Foundation
import Frontmail
import Synchronization

// Clients broken on purpose below the SDK: each misbehaves between the SDK and the server, so a
// verdict test and `explore --broken` can show that the suite catches it (never a modified SDK).

/// A version-4 key made from `key` and `salt` (the same for the same pair, in every process): a
/// broken client's new key, seeded so that a run on virtual time is the same in every process
/// (the plan's decisions are seeded by the key).
package func derivedKey(_ key: String, salt: Int) -> String {
    var state = KeyMixer.fnv1a(key.utf8)
    state = KeyMixer.mix(state ^ UInt64(bitPattern: Int64(salt)) &+ KeyMixer.golden)
    let words = (KeyMixer.next(&state), KeyMixer.next(&state))
    let hex = String(format: "%016llx%016llx", words.0, words.1)
    let digits = Array(hex)
    let variant = "89ab"[String.Index(utf16Offset: Int(words.1 >> 62), in: "89ab")]
    return String(digits[0..<8]) + "-" + String(digits[8..<12]) + "-4" + String(digits[13..<16]) + "-"
        + String(variant) + String(digits[17..<20]) + "-" + String(digits[20..<32])
}

/// FNV-1a and SplitMix64, the two steps of `derivedKey`.
private enum KeyMixer {
    static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    package static func fnv1a(_ bytes: String.UTF8View) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    package static func next(_ state: inout UInt64) -> UInt64 {
        state &+= golden
        return mix(state)
    }

    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// With every attempt, also sends a copy under another key: two effects for one send.
package struct DuplicatingTransport: FrontmailTransport {
    package let base: any FrontmailTransport

    package init(base: any FrontmailTransport) {
        self.base = base
    }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var copy = request
        copy.headers.set(name: "Idempotency-Key", value: derivedKey(request.headers["Idempotency-Key"] ?? "", salt: 0))
        _ = try? await base.send(copy)
        return try await base.send(request)
    }
}

/// Hands the SDK another answer in place of every answer with `status`: a broken client that
/// misreads what the server said.
package struct AnswerReplacingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    package let status: Int
    package let replacement: FrontmailHTTPResponse

    package init(base: any FrontmailTransport, status: Int, replacement: FrontmailHTTPResponse) {
        self.base = base
        self.status = status
        self.replacement = replacement
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let response = try await base.send(request)
        return response.status == status ? replacement : response
    }
}

extension AnswerReplacingTransport {
    /// Answers a 503 with a 202 and a message id the server never issued.
    package static func fabricating(_ base: any FrontmailTransport) -> AnswerReplacingTransport {
        AnswerReplacingTransport(
            base: base, status: 503,
            replacement: FrontmailHTTPResponse(
                status: 202, body: Data(#"{"message_id":"msg_4000000000","status":"queued"}"#.utf8)))
    }

    /// Tells the SDK a send the server accepted was refused: a 202 becomes a 422 (the email went
    /// out, the app is told it did not).
    package static func successAsRefusal(_ base: any FrontmailTransport) -> AnswerReplacingTransport {
        AnswerReplacingTransport(
            base: base, status: 202,
            replacement: FrontmailHTTPResponse(
                status: 422,
                body: Data(
                    #"{"error":{"code":"invalid_template_params","message":"The params are invalid."}}"#.utf8)))
    }
}

/// Hands the SDK another status for every answer whose status lies in `from`, body and headers
/// kept: a client that reads any status of 500 or more as a server error.
package struct StatusMappingTransport: FrontmailTransport {
    package let inner: any FrontmailTransport
    package let from: ClosedRange<Int>
    package let to: Int

    package init(inner: any FrontmailTransport, from: ClosedRange<Int>, to: Int) {
        self.inner = inner
        self.from = from
        self.to = to
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await inner.send(request)
        if from.contains(response.status) { response.status = to }
        return response
    }
}

/// Sends every attempt with a fresh key.
package final class KeyChangingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    private let attempts = Mutex(0)
    package init(base: any FrontmailTransport) { self.base = base }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var copy = request
        let salt = attempts.withLock { count -> Int in
            count += 1
            return count
        }
        copy.headers.set(
            name: "Idempotency-Key", value: derivedKey(request.headers["Idempotency-Key"] ?? "", salt: salt))
        return try await base.send(copy)
    }
}

/// Sends a retry without its Idempotency-Key: the first request under a key carries it, every
/// later one under the same key goes without (a client that builds its retries' headers afresh).
package final class KeyDroppingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    private let seen = Mutex<Set<String>>([])
    package init(base: any FrontmailTransport) { self.base = base }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let key = request.headers["Idempotency-Key"], !seen.withLock({ $0.insert(key).inserted }) else {
            return try await base.send(request)
        }
        var copy = request
        copy.headers = FrontmailHTTPHeaders(
            fields: request.headers.fields.filter { !FrontmailHTTPHeaders.namesEqual($0.name, "Idempotency-Key") })
        return try await base.send(copy)
    }
}

/// Sends every request under the key of the first it sent: every send shares one key.
package final class KeySharingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    private let first = Mutex<String?>(nil)
    package init(base: any FrontmailTransport) { self.base = base }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var copy = request
        let own = request.headers["Idempotency-Key"] ?? ""
        let shared = first.withLock { key -> String in
            if key == nil { key = own }
            return key ?? own
        }
        copy.headers.set(name: "Idempotency-Key", value: shared)
        return try await base.send(copy)
    }
}

/// Writes every key in capitals: a version-4 UUID by RFC 9562, not the lowercase one of the contract.
package struct KeyUppercasingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    package init(base: any FrontmailTransport) { self.base = base }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var copy = request
        copy.headers.set(name: "Idempotency-Key", value: (request.headers["Idempotency-Key"] ?? "").uppercased())
        return try await base.send(copy)
    }
}

/// Re-encodes the body on every attempt with a trailing space.
package final class BodyChangingTransport: FrontmailTransport {
    package let base: any FrontmailTransport
    private let counter = Mutex(0)
    package init(base: any FrontmailTransport) { self.base = base }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var copy = request
        let spaces = counter.withLock { value -> Int in
            value += 1
            return value % 7
        }
        copy.body = request.body.map { $0 + Data(repeating: 32, count: spaces) }
        return try await base.send(copy)
    }
}

/// Drops the Retry-After header from every response.
package struct RetryAfterStrippingTransport: FrontmailTransport {
    package let base: any FrontmailTransport

    package init(base: any FrontmailTransport) {
        self.base = base
    }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await base.send(request)
        response.headers = FrontmailHTTPHeaders(
            response.headers.fields.filter { !$0.name.lowercased().hasPrefix("retry-after") }.map {
                ($0.name, $0.value)
            })
        return response
    }
}

/// A transport that sends a request once more when its answer is a 4xx other than 429 or a 2xx
/// that is not the API's JSON: an SDK that retries what the guide says is never retried (the
/// second request is its own, so the server's ledger holds both).
package struct RetryingNonRetryable: FrontmailTransport {
    package let inner: any FrontmailTransport

    package init(inner: any FrontmailTransport) {
        self.inner = inner
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let response = try await inner.send(request)
        let clientError = (400..<500).contains(response.status) && response.status != 429
        let malformed =
            (200..<300).contains(response.status)
            && (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["message_id"] == nil
        guard clientError || malformed else { return response }
        return try await inner.send(request)
    }
}

/// A client that does not read the API's error body: every error answer reaches the SDK without
/// it, so the SDK falls back to the code of the status alone (`bad_request`, `internal_error`).
package struct ErrorBodyBlind: FrontmailTransport {
    package let inner: any FrontmailTransport

    package init(inner: any FrontmailTransport) {
        self.inner = inner
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await inner.send(request)
        if response.status >= 400 { response.body = Data() }
        return response
    }
}

/// Sends a request that got a 5xx once more before the SDK sees the answer: a retry below the SDK,
/// which its observer never hears of.
package struct HiddenRetryTransport: FrontmailTransport {
    package let inner: any FrontmailTransport

    package init(inner: any FrontmailTransport) {
        self.inner = inner
    }
    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let response = try await inner.send(request)
        guard response.status >= 500 else { return response }
        return try await inner.send(request)
    }
}

/// A transport that puts the status token into the URL, where the guide says it must never go:
/// as a query parameter of any name, or as a path segment; with `keepHeader` false it moves the
/// token out of its header (the server, which reads only the header, then knows no message).
package struct TokenInURL: FrontmailTransport {
    package enum Place: Sendable {
        case query(String)
        case path
    }

    package let inner: any FrontmailTransport
    package var place = Place.query("token")
    package var keepHeader = false

    package init(inner: any FrontmailTransport, place: Place = .query("token"), keepHeader: Bool = false) {
        self.inner = inner
        self.place = place
        self.keepHeader = keepHeader
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let token = request.headers["X-Frontmail-Status-Token"] else { return try await inner.send(request) }
        var moved = request
        if !keepHeader {
            moved.headers = FrontmailHTTPHeaders(
                request.headers.filter { !FrontmailHTTPHeaders.namesEqual($0.name, "X-Frontmail-Status-Token") }
                    .map { ($0.name, $0.value) })
        }
        switch place {
        case .query(let name):
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            components?.queryItems = [URLQueryItem(name: name, value: token)]
            moved.url = components?.url ?? request.url
        case .path:
            moved.url = request.url.appendingPathComponent(token)
        }
        return try await inner.send(moved)
    }
}

/// Rewrites every send body under the SDK, as a broken writer would have written it.
package struct BodyRewritingTransport: FrontmailTransport {
    package let inner: any FrontmailTransport
    package let rewrite: @Sendable (String) -> String

    package init(inner: any FrontmailTransport, rewrite: @escaping @Sendable (String) -> String) {
        self.inner = inner
        self.rewrite = rewrite
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard request.method == "POST", let body = request.body, let text = String(data: body, encoding: .utf8) else {
            return try await inner.send(request)
        }
        var changed = request
        changed.body = Data(rewrite(text).utf8)
        return try await inner.send(changed)
    }
}
