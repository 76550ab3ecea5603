import Foundation

/// A property every correct SDK holds in every run, under every plan, with no threshold a scenario
/// chose: each is the sum of metrics that count violations (zero for a correct client), judged from
/// the server's ledger and the driver's history against the scenario file, never with SDK code.
/// `checked` counts what a run gave it to judge (sends, waits, reads), for coverage.
/// Each is a `ContractProperty` (its name and meaning are the catalog's); this is how explore
/// judges it.
struct ExploreProperty: Sendable, Hashable {
    var property: ContractProperty
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

    var name: String { property.rawValue }
    var summary: String { property.summary }

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
            property: .oneEffect, violations: [.idempotencyDuplicates, .idempotencyUnexpected],
            checked: .idempotencySends),
        ExploreProperty(
            property: .noLostSend, violations: [.idempotencyLost, .idempotencyMessageIDMismatches],
            checked: .idempotencySends),
        ExploreProperty(
            property: .failedMeansNoEffect, violations: [.idempotencyFailWithEffect], checked: .idempotencySends),
        ExploreProperty(property: .keyPresent, violations: [.idempotencyKeylessSends], checked: .idempotencySends),
        ExploreProperty(property: .sameKey, violations: [.idempotencyKeyChanges], checked: .idempotencySends),
        ExploreProperty(property: .distinctKeys, violations: [.idempotencyKeyCollisions], checked: .idempotencySends),
        ExploreProperty(property: .keyV4, violations: [.idempotencyKeysNotV4], checked: .idempotencySends),
        ExploreProperty(property: .sameBody, violations: [.idempotencyBodyChanges], checked: .idempotencySends),
        ExploreProperty(property: .payloadIntact, violations: [.payloadMismatches], checked: .payloadChecked),
        ExploreProperty(
            property: .attemptsReported, violations: [.attemptsUnseen, .attemptsUnreported], checked: .sendSends),
        ExploreProperty(
            property: .attemptBound, violations: [.attemptsOverLimit, .retryExactBudgetViolations],
            checked: .sendSends),
        ExploreProperty(property: .noRetryAfterFinal, violations: [.attemptsAfterFinalAnswer], checked: .sendSends),
        ExploreProperty(property: .retried, violations: [.attemptsGaveUpEarly], checked: .sendSends),
        ExploreProperty(
            property: .retryAfterObeyed, violations: [.jitterExactRetryAfterGapErrors],
            checked: .jitterExactRetryAfterWaits,
            realClock: [.jitterRetryAfterMismatches], realClockChecked: .jitterRetryAfterWaits),
        ExploreProperty(property: .retryAfterLimit, violations: [.jitterOverLimitRetried], checked: .sendSends),
        ExploreProperty(
            property: .waitsInPolicy, violations: [.jitterExactOverCap, .jitterCapMismatches],
            checked: .jitterExactRealizedSamples,
            realClock: [.jitterEarlyRetries], realClockChecked: .jitterSamples),
        ExploreProperty(
            property: .attemptTimeout, violations: [.attemptsExactTimeoutMismatches],
            checked: .attemptsExactTimeouts),
        ExploreProperty(property: .errorIsLastAnswer, violations: [.sendErrorMismatches], checked: .sendErrorsChecked),
        ExploreProperty(
            property: .statusRead,
            violations: [
                .statusDefects, .statusUnknownRetried, .statusUnknownMisreported, .statusMismatched, .statusUnreported,
            ], checked: .statusReads),
        ExploreProperty(
            property: .cancelAborts,
            violations: [.statusCancelledNotAborted, .statusAttemptsAfterCancel, .statusCancelLateMax],
            checked: .statusCancelled, allowances: [.statusCancelLateMax: realClockCancelAllowance]),
        ExploreProperty(property: .survives, violations: [.survivesMisjudged], checked: .survivesHostileSends),
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
    static let jitterUniform = ContractProperty.jitterUniform.rawValue
    static let caseJitterMinimum = 100
    static let caseJitterAlpha = 1e-9

    static var names: [String] { all.map(\.name) + [jitterUniform] }
}
