import FakeFrontmail
import Foundation

/// Every `certify` case, named `group.slug` and numbered by group for display (docs/certify.md
/// lists them): a new case goes anywhere in its group without renaming another. A case's plan answers
/// by request count (`limit`) or by time, never by attempt number: the fake counts attempts by
/// Idempotency-Key, and a client that sends none must meet the same faults.
extension CertifyCase {
    package static let all: [CertifyCase] = {
        var cases: [CertifyCase] = []
        for group in Group.allCases {
            for (index, entry) in entries(group).enumerated() {
                var made = entry
                made.id = "\(group.number).\(index + 1)"
                made.name = "\(group.rawValue).\(entry.name)"
                made.group = group
                cases.append(made)
            }
        }
        return cases
    }()

    /// A case of `group` before its number is given.
    private static func entry(
        _ slug: String, _ title: String, _ property: ContractProperty, _ rules: [FaultRule], sends: Int = 1,
        concurrency: Int = 1,
        weight: Weight = .required, deadline: Double = 30
    ) -> CertifyCase {
        CertifyCase(
            id: "", name: slug, group: .idempotency, title: title, property: property, plan: FaultPlan(rules: rules),
            sends: sends,
            concurrency: concurrency, weight: weight, deadline: deadline, readsStatus: property == .statusRead)
    }

    /// A rule for send requests: `action` for the first `limit` of them (nil: all), or within
    /// seconds `from`-`to` of the server's start.
    private static func on(
        _ action: FaultAction, limit: Int? = nil, from: Double? = nil, to: Double? = nil, everyNth: Int? = nil,
        endpoint: Endpoint = .send
    ) -> FaultRule {
        FaultRule(
            match: FaultMatch(
                endpoint: endpoint, from: from.map { TimeSpan(seconds: $0) }, to: to.map { TimeSpan(seconds: $0) },
                everyNth: everyNth), action: action, limit: limit)
    }

    private static func status(
        _ code: Int, _ errorCode: String? = nil, retryAfter: RetryAfterSpec? = nil, body: BodySpec? = nil
    ) -> FaultAction {
        .respond(code, code: errorCode, retryAfter: retryAfter, body: body)
    }

    private static func seconds(_ value: Double) -> Distribution { .fixed(TimeSpan(seconds: value)) }

    // swift-format-ignore: FunctionBodyLength
    private static func entries(_ group: Group) -> [CertifyCase] {
        switch group {
        case .idempotency:
            return [
                entry("key-on-every-request", "a key on every request", .keyPresent, [on(status(503), limit: 1)]),
                entry("keys-uuid-v4", "keys are lowercase UUID v4", .keyV4, [], sends: 3),
                entry("same-key-after-503", "the same key after a 503", .sameKey, [on(status(503), limit: 2)]),
                entry(
                    "same-key-after-reset", "the same key after a reset", .sameKey, [on(FaultAction(.reset), limit: 1)]),
                entry(
                    "same-key-after-hang", "the same key after a hung attempt", .sameKey,
                    [on(FaultAction(.hang), limit: 1)]),
                entry("distinct-keys-one-message", "five sends of one message, five keys", .distinctKeys, [], sends: 5),
                entry(
                    "distinct-keys-concurrent", "ten concurrent sends, ten keys", .distinctKeys, [], sends: 10,
                    concurrency: 10),
                entry("same-body-after-503", "the same body after a 503", .sameBody, [on(status(503), limit: 2)]),
                entry(
                    "same-body-after-truncation", "the same body after a truncated answer", .sameBody,
                    [on(FaultAction(.truncate, keepBytes: 8), limit: 1)]),
                entry(
                    "one-email-after-drop", "committed, then the connection dropped: one email", .oneEffect,
                    [on(FaultAction(.commitThenDrop), limit: 1)]),
                entry(
                    "one-email-after-late-answer", "committed, answered after 5 s: one email", .oneEffect,
                    [on(FaultAction(.commitThenDelay, delay: seconds(5)), limit: 1)]),
                entry(
                    "one-email-duplicate-in-progress", "a retry while the first attempt is in progress: one email",
                    .oneEffect,
                    [on(FaultAction(.delay, delay: seconds(5)), limit: 1)]),
                entry(
                    "conflict-ends-send", "409 conflict (a duplicate in progress) ends the send", .noRetryAfterFinal,
                    [on(status(409, "conflict"))]),
                entry(
                    "one-email-concurrent-resets", "ten concurrent sends through resets: one email each", .oneEffect,
                    [on(FaultAction(.commitThenDrop), limit: 10, everyNth: 2)], sends: 10, concurrency: 10),
                // After the first fourteen, so their numbers stay as they were.
                entry(
                    "key-on-retry-after-reset", "a key on the retry after a reset", .keyPresent,
                    [on(FaultAction(.reset), limit: 1)]),
            ]
        case .retryAfter:
            return [
                entry(
                    "seconds-503", "503 with Retry-After: 1", .retryAfterObeyed,
                    [on(status(503, retryAfter: .seconds(1)), limit: 1)]),
                entry(
                    "seconds-429", "429 with Retry-After: 1", .retryAfterObeyed,
                    [on(status(429, retryAfter: .seconds(1)), limit: 1)]),
                entry(
                    "fraction", "503 with Retry-After: 1.5", .retryAfterObeyed,
                    [on(status(503, retryAfter: .seconds(1.5)), limit: 1)]),
                entry(
                    "zero", "503 with Retry-After: 0 is retried", .retried,
                    [on(status(503, retryAfter: .seconds(0)), limit: 1)]
                ),
                entry(
                    "date-ahead", "503 with an HTTP date 2 s ahead", .retryAfterObeyed,
                    [on(status(503, retryAfter: .httpDateIn(TimeSpan(seconds: 2))), limit: 1)]),
                entry(
                    "date-past", "503 with an HTTP date in the past is retried", .retried,
                    [on(status(503, retryAfter: .httpDateIn(TimeSpan(seconds: -30))), limit: 1)]),
                entry(
                    "over-limit-503", "503 with Retry-After: 61 ends the send", .retryAfterLimit,
                    [on(status(503, retryAfter: .seconds(61)), limit: 1)], deadline: 15),
                entry(
                    "over-limit-429", "429 with Retry-After: 3600 ends the send", .retryAfterLimit,
                    [on(status(429, retryAfter: .seconds(3600)), limit: 1)], deadline: 15),
                entry(
                    "unreadable", "503 with an unreadable Retry-After is retried", .retried,
                    [on(status(503, retryAfter: .raw("soon")), limit: 1)]),
                entry(
                    "second-answer", "Retry-After on the second of two 503s", .retryAfterObeyed,
                    [on(status(503), limit: 1), on(status(503, retryAfter: .seconds(1)), limit: 1)]),
            ]
        case .backoff:
            return [
                entry(
                    "waits-after-503s", "waits within the claimed policy after three 503s", .waitsInPolicy,
                    [on(status(503), limit: 3)]),
                entry(
                    "waits-after-resets", "waits within the claimed policy after three resets", .waitsInPolicy,
                    [on(FaultAction(.reset), limit: 3)]),
                entry(
                    "jitter-distribution", "waits drawn as the claimed jitter (KS over 50 sends)", .jitterUniform,
                    [on(status(503))],
                    sends: 50, concurrency: 50),
                entry(
                    "independent-draws", "twenty sends failing together retry apart", .independentDraws,
                    [on(status(503), limit: 20)],
                    sends: 20, concurrency: 20),
                entry(
                    "attempt-bound", "at most the claimed attempts under a lasting 503", .attemptBound,
                    [on(status(503))]),
                entry(
                    "retried-to-bound", "a lasting 503 is retried up to the claimed attempts", .retried,
                    [on(status(503))]),
            ]
        case .nonRetryable:
            return [
                entry("400", "400 invalid_body: one request", .noRetryAfterFinal, [on(status(400, "invalid_body"))]),
                entry(
                    "401", "401 invalid_public_key: one request", .noRetryAfterFinal,
                    [on(status(401, "invalid_public_key"))]),
                entry(
                    "402", "402 insufficient_credits: one request", .noRetryAfterFinal,
                    [on(status(402, "insufficient_credits"))]),
                entry(
                    "403", "403 origin_not_allowed: one request", .noRetryAfterFinal,
                    [on(status(403, "origin_not_allowed"))]),
                entry(
                    "404", "404 template_not_found: one request", .noRetryAfterFinal,
                    [on(status(404, "template_not_found"))]),
                entry("408", "408: one request", .noRetryAfterFinal, [on(status(408))]),
                entry(
                    "409-idempotency-conflict", "409 idempotency_conflict: one request", .noRetryAfterFinal,
                    [on(status(409, "idempotency_conflict"))]),
                entry(
                    "413", "413 payload_too_large: one request", .noRetryAfterFinal,
                    [on(status(413, "payload_too_large"))]),
                entry(
                    "422", "422 invalid_template_params: one request", .noRetryAfterFinal,
                    [on(status(422, "invalid_template_params"))]),
                entry(
                    "451", "451 recipient_suppressed: one request", .noRetryAfterFinal,
                    [on(status(451, "recipient_suppressed"))]),
                entry(
                    "400-with-retry-after", "400 with Retry-After: 1 is still final", .noRetryAfterFinal,
                    [on(status(400, "invalid_body", retryAfter: .seconds(1)))]),
                entry(
                    "200-empty-body", "200 with an empty body: one request", .noRetryAfterFinal,
                    [on(status(200, body: .empty))]),
                entry(
                    "202-not-json", "202 with a body that is not JSON: one request", .noRetryAfterFinal,
                    [on(status(202, body: .html))]),
            ]
        case .retryable:
            return [
                entry("500", "500 is retried", .retried, [on(status(500), limit: 1)]),
                entry("502", "502 is retried", .retried, [on(status(502), limit: 1)]),
                entry("503", "503 is retried", .retried, [on(status(503), limit: 1)]),
                entry(
                    "504-html", "504 with an HTML body is retried", .retried, [on(status(504, body: .html), limit: 1)]),
                entry(
                    "429-without-retry-after", "429 without Retry-After is retried", .retried,
                    [on(status(429), limit: 1)]),
                entry("520", "an unlisted 5xx (520) is retried", .retried, [on(status(520), limit: 1)]),
            ]
        case .timeouts:
            return [
                entry(
                    "hung-attempt-given-up", "a hung attempt is given up within the claimed timeout", .attemptTimeout,
                    [on(FaultAction(.hang), limit: 1)], deadline: 20),
                entry(
                    "hung-attempt-retried", "a hung attempt is retried", .retried, [on(FaultAction(.hang), limit: 1)],
                    deadline: 20),
                entry(
                    "late-headers", "headers 5 s late, then a retry", .retried,
                    [on(status(503, body: nil).with(delay: seconds(5)), limit: 1)], deadline: 20),
                entry(
                    "trickled-body", "a body trickled at 4 bytes/s is given up within the timeout", .attemptTimeout,
                    [on(FaultAction(.slowBody, bytesPerSecond: 4), limit: 1)], weight: .informational, deadline: 20),
            ]
        case .resets:
            return [
                entry("reset", "a reset is retried", .retried, [on(FaultAction(.reset), limit: 1)]),
                entry(
                    "close", "a connection closed without an answer is retried", .retried,
                    [on(FaultAction(.close), limit: 1)]),
                entry(
                    "truncated", "a truncated answer is retried", .retried,
                    [on(FaultAction(.truncate, keepBytes: 8), limit: 1)]),
                entry(
                    "commit-then-drop", "committed, then dropped: retried", .retried,
                    [on(FaultAction(.commitThenDrop), limit: 1)]),
                // Informational: a correct client may spend every attempt inside any window (full
                // jitter can draw waits of almost 0), so a send that never arrives proves nothing.
                entry(
                    "refused", "connections refused for 0.5 s: the send arrives", .reached,
                    [FaultRule(match: FaultMatch(to: TimeSpan(seconds: 0.5)), action: FaultAction(.refuse))],
                    weight: .informational),
            ]
        case .outage:
            return [
                entry(
                    "attempt-bound", "a 3 s outage under 20 sends: at most the claimed attempts", .attemptBound,
                    [on(status(503), to: 3)], sends: 20, concurrency: 20),
                entry(
                    "amplification", "requests per send in a 3 s outage", .amplification,
                    [on(FaultAction(.reset), to: 3)], sends: 20,
                    concurrency: 20, weight: .informational),
            ]
        case .status:
            return [
                entry("token-in-header", "a status read carries its token in its header", .statusRead, []),
                entry(
                    "503-retried", "a 503 on a status read is retried", .statusRead,
                    [on(status(503), limit: 1, endpoint: .status)]),
                entry(
                    "404-ends", "a 404 on a status read ends it", .statusRead,
                    [on(status(404, "message_not_found"), endpoint: .status)]),
            ]
        case .hostile:
            return hostileEntries
        }
    }

    /// Answers no API should give, which any broken server, proxy or portal may: a client that
    /// crashes or hangs on one fails, whatever library it is. A status outside the API's table
    /// (3xx, 6xx-999) is judged only for that (clients differ on it: the guide retries 5xx, the
    /// wire contract any status of 500 or more, and an HTTP library may follow a 3xx).
    private static let hostileEntries: [CertifyCase] = [
        entry(
            "huge-date-year", "503 with a Retry-After year of 13 digits is retried", .retried,
            [on(status(503, retryAfter: .raw("Sun, 06 Nov 2999999999999 08:49:37 GMT")), limit: 1)]),
        entry(
            "negative-retry-after", "429 with Retry-After: -1 is retried", .retried,
            [on(status(429, retryAfter: .raw("-1")), limit: 1)]),
        entry(
            "nan-retry-after", "503 with Retry-After: nan is retried", .retried,
            [on(status(503, retryAfter: .raw("nan")), limit: 1)]),
        entry(
            "400-digit-retry-after", "503 with a Retry-After of 400 digits ends the send", .retryAfterLimit,
            [on(status(503, retryAfter: .raw(String(repeating: "9", count: 400))), limit: 1)], deadline: 15),
        entry(
            "deep-nesting-202", "202 with 100,000 open brackets: one request", .noRetryAfterFinal,
            [on(status(202, body: .deepNesting))]),
        entry(
            "huge-number-200", "200 with a message id of 100,000 digits: one request", .noRetryAfterFinal,
            [on(status(200, body: .hugeNumber))]),
        entry(
            "invalid-utf8-202", "202 with bytes that are not UTF-8: one request", .noRetryAfterFinal,
            [on(status(202, body: .invalidUTF8))]),
        entry(
            "megabytes-200", "200 with 4 MiB that are not JSON: one request", .noRetryAfterFinal,
            [on(status(200, body: .megabytes))]),
        entry(
            "deep-nesting-503", "503 with 100,000 open brackets is retried", .retried,
            [on(status(503, body: .deepNesting), limit: 1)]),
        entry(
            "megabytes-503", "503 with 4 MiB that are not JSON is retried", .retried,
            [on(status(503, body: .megabytes), limit: 1)]),
        entry("status-999", "a status of 999: no crash, no hang", .reached, [on(status(999), limit: 1)]),
        entry("redirect-302", "a 302 without a Location: no crash, no hang", .reached, [on(status(302), limit: 1)]),
    ]
}

extension FaultAction {
    /// This action, answered after `delay`.
    func with(delay: Distribution) -> FaultAction {
        var delayed = self
        delayed.delay = delay
        return delayed
    }
}
