import Foundation
import Frontmail

/// What a broken client changes about a correct one, each through a seam a real user has too (a
/// wrapper around the transport, the clock or the observer; the bits of its jitter draws; its
/// policy; its retry budget's bucket), never by changing the SDK's code.
package struct Breakage: Sendable {
    /// A wrapper around the transport (a client that resends, lies or drops below the SDK).
    package var transport: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?
    /// A wrapper around the SDK's clock (a client that sleeps or times out wrongly).
    package var clock: (@Sendable (any FrontmailScheduler) -> any FrontmailScheduler)?
    /// A wrapper around the SDK's observer (a client that reports something else than it does).
    package var observer: (@Sendable (any SendObserver) -> any SendObserver)?
    /// The policy handed to the SDK made from the one it should have (the judges keep the latter).
    package var policy: (@Sendable (RetryPolicy) -> RetryPolicy)?
    /// The client's uniform jitter draw mapped to another value, through the bits it is drawn from
    /// (`DrawMutant`).
    package var draw: (@Sendable (Double) -> Double)?
    /// The bucket of the client's retry budget.
    package var bucket: BrokenBucket?

    package init() {}
}

/// The suite's own deliberately broken clients, by name (`explore --broken NAME`, `run --broken
/// NAME`): each breaks one promise of the guide. `explore` must find every one with no scenario
/// written for it.
package struct BrokenClient: Sendable {
    package var name: String
    /// What it does wrong.
    package var summary: String
    /// The property that must catch it.
    package var property: String
    package var breakage: Breakage

    init(name: String, summary: String, property: String, _ change: (inout Breakage) -> Void) {
        self.name = name
        self.summary = summary
        self.property = property
        var breakage = Breakage()
        change(&breakage)
        self.breakage = breakage
    }

    package static func named(_ name: String) -> BrokenClient? { (all + soakOnly).first { $0.name == name } }

    /// The clients `explore` must find on virtual time (`explore --list-broken`).
    package static let all: [BrokenClient] = transports + clocks + draws + policies + budgets

    /// Clients whose breakage only a cancellation soak shows, on the real clock, in a process of its
    /// own (`run --broken NAME` with a scenario whose `cancellation.soak` is above 0): the memory
    /// they hold, which no property of a send can see. Their `property` is the soak's metric.
    package static let soakOnly: [BrokenClient] = [
        BrokenClient(
            name: "task-sleep-backoff",
            summary: "sleeps its backoffs with Task.sleep: a cancelled wait holds its memory until its deadline",
            property: "cancellation.soak.backoff_growth_per_1k"
        ) { $0.clock = { _ in TaskSleepClock() } }
    ]

    static let transports: [BrokenClient] = [
        BrokenClient(
            name: "duplicating", summary: "sends each first attempt a second time under a new key",
            property: "one-effect-per-send"
        ) { $0.transport = { DuplicatingTransport(base: $0) } },
        BrokenClient(
            name: "fabricating", summary: "answers a 503 with a 202 and a message id the server never issued",
            property: "no-lost-send"
        ) { $0.transport = { AnswerReplacingTransport.fabricating($0) } },
        BrokenClient(
            name: "success-as-refusal", summary: "reports a send the server accepted (202) as refused (422)",
            property: "failed-means-no-effect"
        ) { $0.transport = { AnswerReplacingTransport.successAsRefusal($0) } },
        BrokenClient(
            name: "key-changing", summary: "sends every attempt under a fresh key", property: "same-key"
        ) { $0.transport = { KeyChangingTransport(base: $0) } },
        BrokenClient(
            name: "key-dropping", summary: "sends every retry without its Idempotency-Key", property: "key-present"
        ) { $0.transport = { KeyDroppingTransport(base: $0) } },
        BrokenClient(
            name: "key-sharing", summary: "sends every request under the first send's key", property: "distinct-keys"
        ) { $0.transport = { KeySharingTransport(base: $0) } },
        BrokenClient(
            name: "key-uppercasing", summary: "writes every key in capitals", property: "key-uuid-v4"
        ) { $0.transport = { KeyUppercasingTransport(base: $0) } },
        BrokenClient(
            name: "body-changing", summary: "appends spaces to the body of later attempts", property: "same-body"
        ) { $0.transport = { BodyChangingTransport(base: $0) } },
        BrokenClient(
            name: "retry-after-blind", summary: "never sees a Retry-After header", property: "retry-after-obeyed"
        ) { $0.transport = { RetryAfterStrippingTransport(base: $0) } },
        BrokenClient(
            name: "retries-final-answers", summary: "sends a request again after a 4xx or a malformed 2xx",
            property: "no-retry-after-final-answer"
        ) { $0.transport = { RetryingNonRetryable(inner: $0) } },
        BrokenClient(
            name: "error-body-blind", summary: "never reads an error answer's body (throws the status's code)",
            property: "error-is-last-answer"
        ) { $0.transport = { ErrorBodyBlind(inner: $0) } },
        BrokenClient(
            name: "hidden-retry", summary: "resends a request that got a 5xx below the SDK, unreported",
            property: "attempts-reported"
        ) { $0.transport = { HiddenRetryTransport(inner: $0) } },
        BrokenClient(
            name: "status-token-in-url", summary: "puts a status read's token in the query instead of its header",
            property: "status-read"
        ) { $0.transport = { TokenInURL(inner: $0) } },
        BrokenClient(
            name: "any-5xx-class", summary: "takes a status of 600-999 for a 503 (retries it as a server error)",
            property: "survives"
        ) { $0.transport = { StatusMappingTransport(inner: $0, from: 600...999, to: 503) } },
        BrokenClient(
            name: "null-dropping", summary: "drops a null param from the body it writes", property: "payload-intact"
        ) {
            $0.transport = {
                BodyRewritingTransport(inner: $0) { $0.replacingOccurrences(of: ":null,", with: ":\"\",") }
            }
        },
    ]

    static let clocks: [BrokenClient] = [
        BrokenClient(
            name: "double-counting", summary: "reports every attempt to its observer twice",
            property: "attempts-reported"
        ) { $0.observer = { DoubleCountingObserver(base: $0) } },
        BrokenClient(
            name: "deaf-backoff", summary: "waits out a backoff after its caller cancelled", property: "cancel-aborts"
        ) { $0.clock = { DeafSleepClock(base: $0) } },
        BrokenClient(
            name: "sleeps-longer", summary: "sleeps 10 % longer than the wait it reports",
            property: "waits-in-policy"
        ) { $0.clock = { SkewedClock(base: $0, sleepFactor: 1.1, deadlineLag: 0) } },
        BrokenClient(
            name: "late-deadline", summary: "fires each attempt's timeout 5 ms late", property: "attempt-timeout"
        ) { $0.clock = { SkewedClock(base: $0, sleepFactor: 1, deadlineLag: 0.005) } },
        BrokenClient(
            name: "no-timeout", summary: "never arms an attempt's timeout: a hung request is waited for forever",
            property: "run-completes"
        ) { $0.clock = { NoTimeoutClock(base: $0) } },
    ]

    static let draws: [BrokenClient] = [
        BrokenClient(
            name: "no-jitter", summary: "waits the whole cap every time", property: "jitter-uniform"
        ) { $0.draw = { _ in 0.999_999 } },
        BrokenClient(
            name: "equal-jitter", summary: "waits half the cap plus a draw over the other half",
            property: "jitter-uniform"
        ) { $0.draw = { 0.5 + $0 / 2 } },
        BrokenClient(
            name: "cap-after-jitter", summary: "draws over eight caps, then clips to the cap",
            property: "jitter-uniform"
        ) { $0.draw = { min(1, $0 * 8) } },
        BrokenClient(
            name: "fraction-truncating", summary: "reads a Retry-After of 1.5 as 1",
            property: "retry-after-obeyed"
        ) { $0.transport = { RetryAfterRewritingTransport(base: $0, defect: .truncatesFractions) } },
        BrokenClient(
            name: "retry-after-in-milliseconds", summary: "reads a Retry-After of 61 as 61 ms (no limit binds)",
            property: "retry-after-limit"
        ) { $0.transport = { RetryAfterRewritingTransport(base: $0, defect: .secondsAsMilliseconds) } },
        BrokenClient(
            name: "dates-in-local-time",
            summary: "reads an HTTP-date Retry-After in UTC-10 instead of GMT (10 h late: over the limit)",
            property: "no-early-give-up"
        ) {
            $0.transport = {
                RetryAfterRewritingTransport(base: $0, defect: .datesInZone(TimeZone(secondsFromGMT: -36_000) ?? .gmt))
            }
        },
    ]

    static let policies: [BrokenClient] = [
        BrokenClient(
            name: "one-retry-short", summary: "gives up one retry before its policy's maxRetries",
            property: "no-early-give-up"
        ) { $0.policy = changed { $0.maxRetries = max(0, $0.maxRetries - 1) } },
        BrokenClient(
            name: "one-retry-extra", summary: "retries once more than its policy's maxRetries",
            property: "attempt-bound"
        ) { $0.policy = changed { $0.maxRetries += 1 } },
        BrokenClient(
            name: "doubled-backoff", summary: "draws its waits over twice its policy's caps",
            property: "waits-in-policy"
        ) {
            $0.policy = changed {
                $0.baseDelay *= 2
                $0.maxDelay *= 2
            }
        },
    ]

    /// A policy defect that applies `change` to the scenario's policy.
    private static func changed(
        _ change: @escaping @Sendable (inout RetryPolicy) -> Void
    ) -> @Sendable (RetryPolicy) -> RetryPolicy {
        { policy in
            var copy = policy
            change(&copy)
            return copy
        }
    }

    static let budgets: [BrokenClient] = [
        ("never-charged", "a retry budget that retries take nothing from", BrokenBucket.neverCharged),
        ("never-refilled", "a retry budget that successes never refill", .neverRefilled),
        ("never-refunds", "a retry budget that forgets a success's refund", .neverRefunds),
        ("charges-first-attempt", "a retry budget that charges first attempts too", .chargesFirstAttempt),
        ("rewards-every-success", "a retry budget that rewards every success as a first try", .rewardsEverySuccess),
        ("timeout-at-retry-cost", "a retry budget that charges a timeout like any retry", .timeoutAtRetryCost),
    ].map { name, summary, defect in
        BrokenClient(name: name, summary: summary, property: "attempt-bound") { $0.bucket = defect }
    }
}
