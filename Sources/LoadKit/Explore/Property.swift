import Foundation

/// A property every correct SDK holds in every run, under every plan, with no threshold a scenario
/// chose: each is the sum of metrics that count violations (zero for a correct client), judged from
/// the server's ledger and the driver's history against the scenario file, never with SDK code.
/// `checked` counts what a run gave it to judge (sends, waits, reads), for coverage.
struct ExploreProperty: Sendable, Hashable {
    var name: String
    var summary: String
    var violations: [MetricKey]
    var checked: MetricKey
    /// Over sockets, on the real clock (`explore --transport socket`), the simulation's exact
    /// timing metrics are not recorded: these are judged too, with real time's tolerances.
    var realClock: [MetricKey] = []
    /// What counts as checked on the real clock, where `checked` is a simulation's exact metric.
    var realClockChecked: MetricKey?
    /// On the real clock, a metric that measures time breaks the property only above this much (its
    /// unit: `status.cancel_late.max` is in ms); every other metric counts violations.
    var allowances: [MetricKey: Double] = [:]

    /// The metrics that count its violations: over sockets, without those libcurl's resends blur
    /// and with the real clock's own.
    func violationKeys(realClock onRealClock: Bool) -> [MetricKey] {
        onRealClock ? violations.filter { !Self.notOnRealClock.contains($0) } + realClock : violations
    }

    /// What a run gave this property: how many things it judged and how many broke it. A metric
    /// the run did not record (a probe or section the case does not have) counts nothing.
    /// Where none of its violation metrics was recorded, nothing was checked.
    func judge(_ metrics: [String: Double], realClock onRealClock: Bool = false) -> (checked: Int, violations: Int) {
        let keys = violationKeys(realClock: onRealClock)
        let recorded = keys.compactMap { key in metrics[key].map { (key, $0) } }
        guard !recorded.isEmpty else { return (0, 0) }
        let counted = onRealClock ? realClockChecked ?? checked : checked
        let count = metrics[counted].map { $0.isFinite ? Int($0) : 0 } ?? 0
        // NaN: nothing to measure (the latest of no cancels); infinity is a violation.
        let broken = recorded.reduce(0) { sum, item in
            let (key, value) = item
            if onRealClock, let allowance = allowances[key] { return sum + (value > allowance ? 1 : 0) }
            return sum + (value.isNaN ? 0 : value.isFinite ? Int(value.rounded(.up)) : 1)
        }
        return (count, broken)
    }

    static let all: [ExploreProperty] = [
        ExploreProperty(
            name: "one-effect-per-send", summary: "no send has two effects, and no effect is without a send",
            violations: [.idempotencyDuplicates, .idempotencyUnexpected], checked: .idempotencySends),
        ExploreProperty(
            name: "no-lost-send", summary: "a send the SDK calls sent has the effect with its message id",
            violations: [.idempotencyLost, .idempotencyMessageIDMismatches], checked: .idempotencySends),
        ExploreProperty(
            name: "failed-means-no-effect", summary: "a send that failed for certain (a 4xx) has no effect",
            violations: [.idempotencyFailWithEffect], checked: .idempotencySends),
        ExploreProperty(
            name: "same-key",
            summary: "one version-4 key per send, the same on every attempt, no two sends sharing one",
            violations: [.idempotencyKeyChanges, .idempotencyKeyCollisions, .idempotencyKeysNotV4],
            checked: .idempotencySends),
        ExploreProperty(
            name: "same-body", summary: "every attempt of a send carries the same body bytes",
            violations: [.idempotencyBodyChanges], checked: .idempotencySends),
        ExploreProperty(
            name: "payload-intact", summary: "the body the server decodes is the params the driver meant",
            violations: [.payloadMismatches], checked: .payloadChecked),
        ExploreProperty(
            name: "attempts-reported", summary: "the SDK reports every request it makes and none it did not",
            violations: [.attemptsUnseen, .attemptsUnreported], checked: .sendSends),
        ExploreProperty(
            name: "attempt-bound",
            summary: "at most maxRetries + 1 requests per send, fewer only where the budget's replay refuses",
            violations: [.attemptsOverLimit, .retryExactBudgetViolations], checked: .sendSends),
        ExploreProperty(
            name: "no-retry-after-final-answer",
            summary: "no request after a 2xx or a 4xx other than 429 that the client received whole",
            violations: [.attemptsAfterFinalAnswer], checked: .sendSends),
        ExploreProperty(
            name: "no-early-give-up",
            summary: "a retryable failure with attempts left is retried, unless a budget or Retry-After says no",
            violations: [.attemptsGaveUpEarly], checked: .sendSends),
        ExploreProperty(
            name: "retry-after-obeyed",
            summary: "a retry comes exactly the Retry-After the server meant later; over maxRetryAfter, none",
            violations: [.jitterExactRetryAfterGapErrors, .jitterOverLimitRetried],
            checked: .jitterExactRetryAfterWaits,
            realClock: [.jitterRetryAfterMismatches], realClockChecked: .jitterRetryAfterWaits),
        ExploreProperty(
            name: "waits-in-policy", summary: "every other wait lies within the policy's cap for its retry",
            violations: [.jitterExactOverCap, .jitterCapMismatches], checked: .jitterExactRealizedSamples,
            realClock: [.jitterEarlyRetries], realClockChecked: .jitterSamples),
        ExploreProperty(
            name: "timeout-exact", summary: "an abandoned attempt ends exactly one timeout after it started",
            violations: [.attemptsExactTimeoutMismatches], checked: .attemptsExactTimeouts),
        ExploreProperty(
            name: "error-is-last-answer", summary: "a failed send throws the code and status the server answered last",
            violations: [.sendErrorMismatches], checked: .sendErrorsChecked),
        ExploreProperty(
            name: "status-read",
            summary: "a status read keeps its token out of the URL, never retries a 404, reports what it got",
            violations: [
                .statusDefects, .statusUnknownRetried, .statusUnknownMisreported, .statusMismatched, .statusUnreported,
            ], checked: .statusReads),
        ExploreProperty(
            name: "cancel-aborts",
            summary: "a cancelled read throws aborted at the cancel's instant and sends nothing after",
            violations: [.statusCancelledNotAborted, .statusAttemptsAfterCancel, .statusCancelLateMax],
            checked: .statusCancelled, allowances: [.statusCancelLateMax: realClockCancelAllowance]),
        ExploreProperty(
            name: "survives",
            summary:
                "an answer outside the contract (a 1xx, 3xx or 600-999 status, a hostile body or Retry-After) ends as the contract says",
            violations: [.survivesMisjudged], checked: .survivesHostileSends),
    ]

    /// Not judged over sockets: libcurl resends a request whose reused connection closed before
    /// any answer, below the SDK and unreported to it, and the server cannot tell that request
    /// from a hidden retry (in-process, every one is judged exactly; `attempts.over_limit` allows
    /// for such resends over sockets).
    static let notOnRealClock: Set<MetricKey> = [.attemptsUnreported, .statusUnreported]

    /// On the real clock, a cancelled read may throw this many ms after its cancel (certify's
    /// allowance for a late wait on a loaded host, `CertifyJudge.lateTolerance`'s 0.3 s).
    static let realClockCancelAllowance = 300.0

    /// The pooled property: jittered waits over every run, divided by their caps, are U(0, 1).
    /// A case with `caseJitterMinimum` such waits is also tested alone, at `caseJitterAlpha`: a
    /// failure there is shrunk like any other (a case's waits are few, so its test is far less
    /// sensitive than the pool's; it catches a gross defect in a case of one send).
    static let jitterUniform = "jitter-uniform"
    static let caseJitterMinimum = 100
    static let caseJitterAlpha = 1e-9

    static var names: [String] { all.map(\.name) + [jitterUniform] }
}
