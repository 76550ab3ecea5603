import FakeFrontmail
import Foundation
import Frontmail

/// One scenario file (`scenarios/*.json`, documented in docs/scenarios.md).
public struct Scenario: Sendable, Hashable {
    public var name: String
    public var description: String
    public var seed: UInt64
    /// The front end the client reaches the fake through (the file's `transport`).
    public var transport: FrontEnd
    /// Multiplies every duration of the client, the plan and Retry-After values (0.01 = 100× faster);
    /// results are reported in policy units (divided by it again). On virtual time it is 1: policy
    /// time is simulated exactly (`onVirtualTime()` keeps the file's value in `declaredTimeScale`).
    public var timeScale: Double
    /// Which clock the run reads (the file's `clock`): virtual by default in process, real over
    /// sockets and for the cancellation experiment (they measure it).
    public var clock: ClockChoice = .real
    /// The file's `timeScale` once `onVirtualTime()` set it aside (it has no effect there).
    public var declaredTimeScale: Double?
    public var client: ClientSettings
    public var load: LoadSettings
    public var payload: PayloadProfile
    public var server: EmulatorConfig
    public var plan: FaultPlan
    public var probes: Set<ProbeKind>
    public var assertions: [Assertion]
    /// What `--quick` changes; by default the load shrinks tenfold.
    public var quick: QuickSettings?
    /// Makes the scenario a cancellation experiment instead of a load (see docs/scenarios.md).
    public var cancellation: CancellationSettings?
    /// Judges recovery after a trigger from goodput per second (see docs/scenarios.md).
    public var metastability: MetastabilitySettings?
    /// Reads each sent message's delivery status (see docs/scenarios.md).
    public var status: StatusSettings?
    /// The wall time the scenario should take on two idle cores, build not counted (the file's
    /// `wallBudget`; `quick.wallBudget` under `--quick`): a run over it says so beside its verdict,
    /// in its results (`run.over_budget`) and in the report. Nil: no budget.
    public var wallBudget: TimeSpan?
    /// The `TZ` of the scenario's own process (an IANA zone such as `Pacific/Kiritimati`): a client
    /// that reads HTTP dates in local time shows only where local time is not UTC. Applies where
    /// the scenario runs in a child of its own (`run`'s default); nil: the host's zone.
    public var timeZone: String?
    /// The file it came from.
    public var file: String = ""
}

/// The clock of a run: virtual (a deterministic simulation, see docs/simulation.md) or the real one.
public enum ClockChoice: String, Sendable, Hashable, CaseIterable, InputChoice {
    case virtual
    case real
}

public struct ClientSettings: Sendable, Hashable {
    public var maxRetries = 3
    public var baseDelay = TimeSpan(seconds: 0.3)
    public var maxDelay = TimeSpan(seconds: 10)
    public var maxRetryAfter = TimeSpan(seconds: 60)
    public var timeout = TimeSpan(seconds: 15)
    /// URLSession's connection limit per host (socket transport).
    public var maxConnections = 256
    /// How many `Frontmail` instances the load sends through: send number `n` goes through
    /// instance `n % instances`, each with its own retry budget.
    public var instances = 1
    /// The client-wide retry budget (none by default, as in the SDK).
    public var budget = BudgetSetting.none
    /// Sends use this explicit idempotency key pattern (`{n}` = the send's number modulo `keyPool`).
    public var explicitKeys: ExplicitKeys?

    public struct ExplicitKeys: Sendable, Hashable {
        public var pool: Int
        /// Whether sends that share a key also share the body (true: a replay; false: a conflict).
        public var sameBody: Bool
    }

    /// Every send carries a Turnstile token (`SendOptions.turnstileToken`) and, when set, the key
    /// that verifies it (`turnstileKey`): `bench-turnstile-<n>`, or the fake's rejected token
    /// `bad-token` for every `badEvery`-th send (0: none).
    public var turnstile: TurnstileSettings?

    public struct TurnstileSettings: Sendable, Hashable {
        public var key: TurnstileKey?
        public var badEvery = 0

        /// The fake server's default rejected token (`server.badTurnstileTokens`).
        public static let badToken = "bad-token"

        /// The token of send `number`.
        public func token(_ number: Int) -> String {
            badEvery > 0 && number % badEvery == badEvery - 1 ? Self.badToken : "bench-turnstile-\(number)"
        }
    }

    public init() {}

    /// The policy in policy units.
    public var policy: RetryPolicy {
        RetryPolicy(
            maxRetries: maxRetries, baseDelay: baseDelay.seconds, maxDelay: maxDelay.seconds,
            maxRetryAfter: maxRetryAfter.seconds, budget: budget.budget)
    }

    /// The policy the client actually runs with (a budget counts requests: it is not scaled).
    public func scaledPolicy(_ scale: Double) -> RetryPolicy {
        RetryPolicy(
            maxRetries: maxRetries, baseDelay: baseDelay.seconds * scale, maxDelay: maxDelay.seconds * scale,
            maxRetryAfter: maxRetryAfter.seconds * scale, budget: budget.budget)
    }
}

public struct LoadSettings: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
        /// `concurrency` senders, each starting its next send when the last one ends.
        case closed
        /// Sends start on a fixed schedule (`rate` per second) whatever happens to earlier ones.
        case open
    }

    public struct Stage: Sendable, Hashable {
        public var rate: Double
        public var duration: TimeSpan
    }

    public var kind: Kind = .closed
    public var concurrency = 64
    /// Stop after this many sends (closed loop).
    public var sends: Int?
    /// Stop starting sends after this long (wall time, not scaled).
    public var duration: TimeSpan?
    /// Open loop: sends per second, and the cap on sends in flight (above it, sends are dropped).
    public var rate: Double = 100
    /// Open loop: the rate as a fraction of a capacity measured at the start of the run (replaces
    /// `rate` once measured).
    public var calibratedRate: CalibratedRate?
    public var maxInFlight = 256
    /// Open loop over sockets: a control arm run beside the SDK's load (`ControlArm`).
    public var control: ControlClient?
    /// Open loop: consecutive rate stages instead of one `rate` for `duration`.
    public var stages: [Stage] = []
    /// Rates are per policy second and durations in policy seconds (multiplied by `timeScale` to
    /// run), so a time-scaled run keeps its shape against the plan's windows.
    public var policyTime = false

    public init() {}

    /// The open loop's length as written (policy seconds when `policyTime`).
    public var policyLength: Double {
        stages.isEmpty ? duration?.seconds ?? 0 : stages.reduce(0) { $0 + $1.duration.seconds }
    }

    /// The load as the driver runs it: with `policyTime`, rates divided and durations multiplied by
    /// `timeScale`.
    public func running(timeScale: Double) -> LoadSettings {
        guard policyTime, timeScale != 1 else { return self }
        var copy = self
        copy.rate = rate / timeScale
        copy.duration = duration?.scaled(by: timeScale)
        copy.stages = stages.map { Stage(rate: $0.rate / timeScale, duration: $0.duration.scaled(by: timeScale)) }
        return copy
    }
}

/// `"control": "rawURLSession"`: the client a load's control arm runs, on the same schedule at the
/// same time as the SDK's.
public enum ControlClient: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
    /// Plain `URLSession.data(for:)` against a fake of its own.
    case rawURLSession
}

public struct QuickSettings: Sendable, Hashable {
    public var sends: Int?
    public var duration: TimeSpan?
    public var concurrency: Int?
    public var rate: Double?
    public var samples: Int?
    public var backgroundLoad: Int?
    public var soak: Int?
    public var wallBudget: TimeSpan?
    /// Replaces the assertions in quick runs (CI on a shared machine); the full run keeps the targets.
    public var assertions: [Assertion]?
}

/// What a scenario measures: a load judged by probes, or the cancellation experiment.
public enum Experiment: Sendable, Hashable {
    /// Sends driven by `load`, judged afterwards by the scenario's probes.
    case load
    /// Cancel → `aborted` latency per phase, idle and under load (a `cancellation` section).
    case cancellation(CancellationSettings)
}

extension Scenario {
    public var experiment: Experiment { cancellation.map(Experiment.cancellation) ?? .load }
}

/// `"rate": {"fraction": 0.6, "of": "rawURLSession"}`: a rate relative to what a reference client
/// sustains on this machine, measured at the start of the same run (`Calibration`).
public struct CalibratedRate: Sendable, Hashable {
    public enum Reference: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
        /// Plain `URLSession.data(for:)` against the fake server (socket scenarios).
        case rawURLSession
        /// Requests handed straight to the in-process core, no SDK.
        case inProcessCore
    }

    public var fraction: Double
    public var of: Reference
}

extension Scenario {
    /// An IANA zone name this machine knows: 1-64 of `A-Za-z0-9/_+-`, not starting with `/` or `.`.
    static func checkTimeZone(_ zone: String, _ path: String) throws(InputError) {
        let allowed = zone.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default: return "/_+-".utf8.contains(byte)
            }
        }
        guard (1...64).contains(zone.utf8.count), allowed, zone.first != "/", !zone.contains("//") else {
            throw InputError(
                path: path,
                reason: "must be an IANA time zone name such as 'Pacific/Kiritimati' (1-64 of A-Z a-z 0-9 / _ + -)")
        }
        guard TimeZone(identifier: zone) != nil else {
            throw InputError(
                path: path, reason: "'\(zone)' is not a time zone this machine knows (see /usr/share/zoneinfo)")
        }
    }
}
