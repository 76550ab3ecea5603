import Foundation
import Frontmail
import Synchronization

// Clients broken one way each, for the verdict tests that show a check fails them (each test
// names the check); not in explore's catalog, which holds the ones a search must find.

/// A transport that keeps a Retry-After only when it is spelled `Retry-After`: an SDK that looks
/// the header up case-sensitively (as `allHeaderFields["Retry-After"]` does on Linux) and misses
/// the lower-case header of HTTP/2 stacks and proxies.
package struct CaseSensitiveRetryAfter: FrontmailTransport {
    package let inner: any FrontmailTransport
    package init(inner: any FrontmailTransport) { self.inner = inner }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        var response = try await inner.send(request)
        let kept = response.headers.fields.filter {
            $0.name == "Retry-After" || !FrontmailHTTPHeaders.namesEqual($0.name, "Retry-After")
        }
        response.headers = FrontmailHTTPHeaders(kept.map { ($0.name, $0.value) })
        return response
    }
}

/// The unstructured tasks a `ResendAfterCancelTransport` started.
package final class ResendLog: Sendable {
    package init() {}
    private let tasks = Mutex<[Task<Void, Never>]>([])
    package func add(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }
    package func cancelAll() { tasks.withLock { for task in $0 { task.cancel() } } }
}

/// Sends requests behind the SDK's back from unstructured tasks, as a transport that "finishes the
/// job" in the background would: when an attempt is cancelled, the same request once more; after a
/// 5xx (the SDK then waits in a backoff, where it is cancelled), the same request 150 ms later.
package final class ResendAfterCancelTransport: FrontmailTransport {
    package let inner: any FrontmailTransport
    package let resends: ResendLog
    package init(inner: any FrontmailTransport, resends: ResendLog) {
        self.inner = inner
        self.resends = resends
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        let inner = self.inner
        let resends = self.resends
        let response = try await withTaskCancellationHandler {
            try await inner.send(request)
        } onCancel: {
            resends.add(Task.detached { _ = try? await inner.send(request) })
        }
        if response.status >= 500 {
            // The SDK will wait (0.3 s at this test's time scale) and is cancelled within moments;
            // the resend lands 150 ms into the wait, well after the cancel and before the count.
            resends.add(
                Task.detached {
                    try? await Task.sleep(nanoseconds: 150_000_000)
                    _ = try? await inner.send(request)
                })
        }
        return response
    }
}

/// A transport that holds every request three seconds before sending it: an SDK that keeps each send
/// in flight far longer than plain URLSession does (a lock, an extra round trip, a slow encoder).
package struct HoldingTransport: FrontmailTransport {
    package let inner: any FrontmailTransport
    package init(inner: any FrontmailTransport) { self.inner = inner }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        try await Task.sleep(nanoseconds: 3_000_000_000)
        return try await inner.send(request)
    }
}

/// A transport that answers a cancel only after `linger` (500 ms unless set): an SDK that waits for its transport's own
/// cancel callback (or sleeps before it throws).
package struct SlowCancelTransport: FrontmailTransport {
    package let inner: any FrontmailTransport
    /// How long it lingers after a cancel before it throws.
    package var linger = 0.5

    package init(inner: any FrontmailTransport, linger: Double = 0.5) {
        self.inner = inner
        self.linger = linger
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        do {
            return try await inner.send(request)
        } catch {
            if Task.isCancelled {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + linger) { continuation.resume() }
                }
            }
            throw error
        }
    }
}

/// Rewrites the Turnstile members of send bodies as a wrong SDK would send them.
package struct TurnstileRewriting: FrontmailTransport {
    package enum Kind: Sendable, CustomStringConvertible {
        /// The token only on a send's first request: retries go without it.
        case tokenOnFirstAttemptOnly
        /// The key capitalised (`Org`), which the server does not know.
        case keyCapitalised

        package var description: String {
            switch self {
            case .tokenOnFirstAttemptOnly: return "the token on the first attempt only"
            case .keyCapitalised: return "the key capitalised"
            }
        }
    }

    /// Idempotency keys already sent once.
    package final class SeenKeys: Sendable {
        let keys = Mutex<Set<String>>([])
    }

    package let inner: any FrontmailTransport
    package let kind: Kind
    package let seen = SeenKeys()

    package init(inner: any FrontmailTransport, kind: Kind) {
        self.inner = inner
        self.kind = kind
    }

    package func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let body = request.body, let key = request.headers["Idempotency-Key"],
            var object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return try await inner.send(request) }
        switch kind {
        case .tokenOnFirstAttemptOnly:
            let retry = seen.keys.withLock { !$0.insert(key).inserted }
            if retry { object["turnstile_token"] = nil }
        case .keyCapitalised:
            if let name = object["turnstile_key"] as? String { object["turnstile_key"] = name.capitalized }
        }
        var rewritten = request
        rewritten.body = try JSONSerialization.data(withJSONObject: object)
        return try await inner.send(rewritten)
    }
}
