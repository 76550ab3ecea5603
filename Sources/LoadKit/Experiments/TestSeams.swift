import Foundation
import Frontmail
import FrontmailMutants
import Simulator

/// What the suite's own tests may change about a run, to feed it seeded or broken behaviour
/// without touching the SDK's code: one value, passed from the runner to the experiment.
///
/// Entropy and time may be injected; a decision of the SDK (a delay, a key, a retry) is never
/// replaced. The defects break the client on purpose through those seams (`FrontmailMutants`), so
/// a test can show that a verdict fails a wrong client; every run of the tool leaves them nil
/// unless it is asked for a broken client (`--broken`).
struct TestSeams: Sendable {
    /// Seeded random bits for the client (nil: the system's generator on the real clock, the
    /// scenario's seed on virtual time); the SDK still turns them into its draws and keys.
    var entropy: (@Sendable () -> UInt64)?
    /// A jitter draw broken on purpose: the client's uniform draw mapped to another value, through
    /// the bits it draws it from (`DrawMutant`).
    var drawDefect: (@Sendable (Double) -> Double)?
    /// A Retry-After reading broken on purpose.
    var retryAfterDefect: RetryAfterDefect?
    /// The bucket of the client's retry budget broken on purpose.
    var budgetDefect: BrokenBucket?
    /// A wrapper around the transport (a client that resends, lies or drops behind the SDK).
    var transportWrapper: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)?
    /// A policy handed to the SDK instead of the scenario's (the probes still expect the scenario's).
    var policyOverride: RetryPolicy?
    /// The scenario's policy changed before the SDK gets it (one retry too many or too few, a
    /// doubled delay), for a broken client of any scenario; the probes still expect the scenario's.
    var policyDefect: (@Sendable (RetryPolicy) -> RetryPolicy)?
    /// A per-attempt timeout handed to the SDK instead of the scenario's, in the run's seconds
    /// (scaled on the real clock, policy seconds on virtual time).
    var timeoutOverride: TimeInterval?
    /// A wrapper around the SDK's observer (a client that reports something else than it does).
    var observerWrapper: (@Sendable (any SendObserver) -> any SendObserver)?
    /// A broken scheduler, for the tests that show verdicts depend on quiescence: timers fire every
    /// that many jobs (see `Simulation.run`).
    var simulationAdvanceEvery: Int?
    /// A wrapper around the SDK's clock (a client that sleeps or times out wrongly): on virtual time,
    /// over sockets, and in a cancellation scenario's memory soak.
    var clockWrapper: (@Sendable (any FrontmailScheduler) -> any FrontmailScheduler)?

    /// The client's transport: `transportWrapper` around `base`, under the Retry-After rewrite of
    /// `retryAfterDefect` (nil: neither).
    var wrapsTransport: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)? {
        guard let retryAfterDefect else { return transportWrapper }
        let outer = transportWrapper
        return { base in
            let rewritten = RetryAfterRewritingTransport(base: base, defect: retryAfterDefect)
            return outer?(rewritten) ?? rewritten
        }
    }

    /// `environment` with its jitter bits drawn from its `entropy` as it is now and mapped by
    /// `drawDefect` (unchanged without one): called again whenever the entropy changes (a
    /// simulation seeds it after `apply`), so the broken draw maps the seeded stream.
    func mappingDraws(of environment: SendEnvironment) -> SendEnvironment {
        guard let drawDefect else { return environment }
        var mapped = environment
        mapped.jitterEntropy = DrawMutant.entropy(from: environment.entropy, mapped: drawDefect)
        return mapped
    }

    /// The client's environment: the seeded bits and the defects on top of `base`.
    func apply(to base: SendEnvironment) -> SendEnvironment {
        var environment = base
        if let entropy { environment.entropy = entropy }
        environment = mappingDraws(of: environment)
        if let budgetDefect { environment.retryTokens = { budgetDefect.tokens($0) } }
        return environment
    }
}

extension BrokenClient {
    /// This client's breakage, on the seams of a run.
    func apply(to seams: inout TestSeams) {
        if let transport = breakage.transport { seams.transportWrapper = transport }
        if let clock = breakage.clock { seams.clockWrapper = clock }
        if let observer = breakage.observer { seams.observerWrapper = observer }
        if let policy = breakage.policy { seams.policyDefect = policy }
        if let draw = breakage.draw { seams.drawDefect = draw }
        if let bucket = breakage.bucket { seams.budgetDefect = bucket }
    }
}
