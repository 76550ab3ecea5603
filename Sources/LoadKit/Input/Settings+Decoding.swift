import FakeFrontmail
import Foundation
import Frontmail

// The decoding and range checks of a scenario's client and load settings (Scenario+Decoding.swift
// reads the scenario around them).

extension ClientSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "maxRetries", "baseDelay", "maxDelay", "maxRetryAfter", "timeout", "maxConnections", "explicitKeys",
            "budget", "turnstile", "instances",
        ])
        self.init()
        maxRetries = try container.integer(Int.self, AnyKey("maxRetries"), in: Self.retries) ?? maxRetries
        baseDelay = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("baseDelay")) ?? baseDelay
        maxDelay = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("maxDelay")) ?? maxDelay
        maxRetryAfter = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("maxRetryAfter")) ?? maxRetryAfter
        timeout = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("timeout")) ?? timeout
        maxConnections =
            try container.integer(Int.self, AnyKey("maxConnections"), in: Self.connections) ?? maxConnections
        explicitKeys = try container.decodeIfPresent(ExplicitKeys.self, forKey: AnyKey("explicitKeys"))
        budget = try container.decodeIfPresent(BudgetSetting.self, forKey: AnyKey("budget")) ?? .none
        turnstile = try container.decodeIfPresent(TurnstileSettings.self, forKey: AnyKey("turnstile"))
        instances = try container.integer(Int.self, AnyKey("instances"), in: Self.instanceCounts) ?? instances
    }

    static let retries = 0...100
    static let connections = 1...100_000
    static let instanceCounts = 1...1000

    func validate(path: String) throws(InputError) {
        try InputError.check(maxRetries, in: Self.retries, path + ".maxRetries")
        for (name, span) in [("baseDelay", baseDelay), ("maxDelay", maxDelay), ("maxRetryAfter", maxRetryAfter)] {
            try InputError.check(span, "\(path).\(name)")
        }
        try InputError.check(timeout, path + ".timeout", positive: true)
        try InputError.check(maxConnections, in: Self.connections, path + ".maxConnections")
        try InputError.check(instances, in: Self.instanceCounts, path + ".instances")
        if let explicitKeys { try InputError.check(explicitKeys.pool, in: 1...10_000_000, path + ".explicitKeys.pool") }
        if let turnstile { try InputError.check(turnstile.badEvery, in: 0...1_000_000, path + ".turnstile.badEvery") }
    }
}

extension ClientSettings.TurnstileSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["key", "badEvery"])
        if let name = try container.decodeIfPresent(String.self, forKey: AnyKey("key")) {
            guard let key = TurnstileKey(rawValue: name) else {
                let accepted = TurnstileKey.allCases.map(\.rawValue).joined(separator: ", ")
                throw InputError(
                    path: InputError.path(decoder.codingPath + [AnyKey("key")]),
                    reason: "'\(name)' is not a Turnstile key (\(accepted))")
            }
            self.key = key
        }
        badEvery = try container.integer(Int.self, AnyKey("badEvery")) ?? 0
    }
}

extension ClientSettings.ExplicitKeys: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["pool", "sameBody"])
        pool = try container.requiredInteger(Int.self, AnyKey("pool"))
        sameBody = try container.decodeIfPresent(Bool.self, forKey: AnyKey("sameBody")) ?? true
    }
}

extension LoadSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "type", "concurrency", "sends", "duration", "rate", "maxInFlight", "stages", "policyTime", "control",
        ])
        self.init()
        kind = try container.decodeIfPresent(Kind.self, forKey: AnyKey("type")) ?? .closed
        concurrency = try container.integer(Int.self, AnyKey("concurrency"), in: Self.widths) ?? concurrency
        sends = try container.integer(Int.self, AnyKey("sends"), in: 1...Self.maxSends)
        duration = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("duration"))
        // A number of sends/s, or {"fraction": F, "of": REFERENCE}.
        if let number = try? container.decodeIfPresent(Double.self, forKey: AnyKey("rate")) {
            rate = number
        } else if container.contains(AnyKey("rate")) {
            calibratedRate = try container.decode(CalibratedRate.self, forKey: AnyKey("rate"))
        }
        maxInFlight = try container.integer(Int.self, AnyKey("maxInFlight"), in: Self.widths) ?? maxInFlight
        stages = try container.decodeIfPresent([Stage].self, forKey: AnyKey("stages")) ?? []
        // Stages replace the rate: both given, one of them would be ignored without a word.
        if container.contains(AnyKey("rate")), container.contains(AnyKey("stages")) {
            throw InputError(
                path: InputError.path(container.codingPath + [AnyKey("stages")]),
                reason: "give rate (with duration) or stages, not both")
        }
        policyTime = try container.decodeIfPresent(Bool.self, forKey: AnyKey("policyTime")) ?? false
        control = try container.decodeIfPresent(ControlClient.self, forKey: AnyKey("control"))
    }

    /// The most sends one run may plan (the history keeps a record of each).
    public static let maxSends = 10_000_000
    /// Sends at once: a closed load's concurrency, an open one's maxInFlight.
    static let widths = 1...100_000
    /// Open-loop rates, sends per second.
    public static let rates: ClosedRange<Double> = 0.01...1_000_000

    func validate(path: String) throws(InputError) {
        switch kind {
        case .closed:
            guard control == nil else {
                throw InputError(
                    path: path + ".control", reason: "a control arm runs the open loop's schedule; this load is closed")
            }
            try InputError.check(concurrency, in: Self.widths, path + ".concurrency")
            guard sends != nil || duration != nil else {
                throw InputError(path: path, reason: "a closed load needs sends or duration (or both)")
            }
        case .open:
            guard stages.isEmpty ? duration != nil : true else {
                throw InputError(path: path + ".duration", reason: "an open load needs a duration (or stages)")
            }
            if let calibratedRate {
                guard !policyTime else {
                    throw InputError(
                        path: path + ".policyTime",
                        reason: "takes written rates, not a calibrated one (measured in real time)")
                }
                try InputError.check(calibratedRate.fraction, in: 0.01...10, path + ".rate.fraction")
                guard stages.isEmpty else {
                    throw InputError(path: path + ".stages", reason: "stages take absolute rates, not a calibrated one")
                }
            } else {
                try InputError.check(rate, in: Self.rates, path + ".rate", unit: " sends/s")
            }
            try InputError.check(maxInFlight, in: Self.widths, path + ".maxInFlight")
            try InputError.check(stages.count, in: 0...1000, path + ".stages", unit: " stages")
            for (index, stage) in stages.enumerated() {
                try InputError.check(stage.rate, in: Self.rates, "\(path).stages[\(index)].rate", unit: " sends/s")
                try InputError.check(stage.duration, "\(path).stages[\(index)].duration", positive: true)
            }
            let planned =
                stages.isEmpty
                ? rate * (duration?.seconds ?? 0)
                : stages.reduce(0) { $0 + $1.rate * $1.duration.seconds }
            // A calibrated rate is only known at run time: the driver stops at maxSends then.
            guard sends != nil || calibratedRate != nil || planned <= Double(Self.maxSends) else {
                throw InputError(
                    path: path,
                    reason:
                        "plans \(String(format: "%.0f", planned)) sends; at most \(Self.maxSends) per run (lower the rate or duration, or set sends)"
                )
            }
        }
        if let sends { try InputError.check(sends, in: 1...Self.maxSends, path + ".sends") }
        if let duration { try InputError.check(duration, path + ".duration", positive: true) }
    }
}

extension CalibratedRate: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["fraction", "of"])
        fraction = try container.decode(Double.self, forKey: AnyKey("fraction"))
        of = try container.decode(Reference.self, forKey: AnyKey("of"))
    }
}

extension LoadSettings.Stage: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["rate", "duration"])
        rate = try container.decode(Double.self, forKey: AnyKey("rate"))
        duration = try container.decode(TimeSpan.self, forKey: AnyKey("duration"))
    }
}
