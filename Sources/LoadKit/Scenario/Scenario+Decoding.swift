import FakeFrontmail
import Foundation
import Frontmail

extension Scenario: Decodable {
    static let fields: Set<String> = [
        "name", "description", "seed", "transport", "timeScale", "client", "load", "payload", "server", "plan",
        "probes",
        "assertions", "quick", "cancellation",
    ]

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Self.fields)
        let container = try decoder.container(keyedBy: AnyKey.self)
        func key(_ name: String) -> AnyKey { AnyKey(name) }
        name = try container.decode(String.self, forKey: key("name"))
        description = try container.decodeIfPresent(String.self, forKey: key("description")) ?? ""
        seed = try container.decodeIfPresent(UInt64.self, forKey: key("seed")) ?? 1
        transport = try container.decodeIfPresent(FrontEnd.self, forKey: key("transport")) ?? .inProcess
        timeScale = try container.decodeIfPresent(Double.self, forKey: key("timeScale")) ?? 1
        client = try container.decodeIfPresent(ClientSettings.self, forKey: key("client")) ?? ClientSettings()
        load = try container.decodeIfPresent(LoadSettings.self, forKey: key("load")) ?? LoadSettings()
        payload = try container.decodeIfPresent(PayloadProfile.self, forKey: key("payload")) ?? .contactForm
        server = try container.decodeIfPresent(EmulatorConfig.self, forKey: key("server")) ?? EmulatorConfig()
        plan = try container.decodeIfPresent(FaultPlan.self, forKey: key("plan")) ?? .none
        cancellation = try container.decodeIfPresent(CancellationSettings.self, forKey: key("cancellation"))
        let listed = try container.decodeIfPresent([String].self, forKey: key("probes"))
        if cancellation != nil, let listed, !listed.isEmpty {
            throw InputError(
                path: "probes",
                reason: "a scenario with a cancellation section is an experiment of its own; it runs no probes")
        }
        var probes: Set<ProbeKind> = cancellation == nil && listed == nil ? [.jitter, .idempotency, .outcome] : []
        for (index, name) in (listed ?? []).enumerated() {
            guard let probe = ProbeKind(rawValue: name) else {
                let accepted = ProbeKind.allCases.map(\.rawValue).joined(separator: ", ")
                let hint = name == "cancellation" ? "; a cancellation section makes the scenario that experiment" : ""
                throw InputError(
                    path: "probes[\(index)]", reason: "unknown probe '\(name)' (accepted: \(accepted))\(hint)")
            }
            probes.insert(probe)
        }
        self.probes = probes
        assertions = try container.decodeIfPresent([Assertion].self, forKey: key("assertions")) ?? []
        quick = try container.decodeIfPresent(QuickSettings.self, forKey: key("quick"))
    }

    /// Reads, decodes and validates a scenario file. Errors are `FILE: field.path: reason`.
    public static func load(file: String) throws(InputFileError) -> Scenario {
        let data = try InputFileError.read(file)
        var scenario: Scenario
        do {
            scenario = try JSONDecoder().decode(Scenario.self, from: data)
        } catch {
            throw InputFileError(file: file, error: InputError.from(error))
        }
        scenario.file = file
        do {
            try scenario.validate()
        } catch {
            throw InputFileError(file: file, error: error)
        }
        return scenario
    }

    public func validate() throws(InputError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw InputError(path: "name", reason: "must be letters, digits, - or _ (it names the results folder)")
        }
        guard timeScale > 0, timeScale <= 1000, timeScale.isFinite else {
            throw InputError(path: "timeScale", reason: "must be greater than 0 (0.01 runs 100× faster)")
        }
        try client.validate(path: "client")
        switch experiment {
        case .cancellation(let settings): try settings.validate(path: "cancellation")
        case .load: try load.validate(path: "load")
        }
        try server.validate(path: "server")
        try plan.validate(path: "plan")
        for (index, assertion) in assertions.enumerated() {
            try assertion.validate(path: "assertions[\(index)]", in: self)
        }
        for (index, assertion) in (quick?.assertions ?? []).enumerated() {
            try assertion.validate(path: "quick.assertions[\(index)]", in: self)
        }
    }
}

extension ClientSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys([
            "maxRetries", "baseDelay", "maxDelay", "maxRetryAfter", "timeout", "maxConnections", "explicitKeys",
        ])
        let container = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        maxRetries = try container.decodeIfPresent(Int.self, forKey: AnyKey("maxRetries")) ?? maxRetries
        baseDelay = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("baseDelay")) ?? baseDelay
        maxDelay = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("maxDelay")) ?? maxDelay
        maxRetryAfter = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("maxRetryAfter")) ?? maxRetryAfter
        timeout = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("timeout")) ?? timeout
        maxConnections = try container.decodeIfPresent(Int.self, forKey: AnyKey("maxConnections")) ?? maxConnections
        explicitKeys = try container.decodeIfPresent(ExplicitKeys.self, forKey: AnyKey("explicitKeys"))
    }

    func validate(path: String) throws(InputError) {
        if maxRetries < 0 || maxRetries > 100 {
            throw InputError(path: path + ".maxRetries", reason: "must be 0-100")
        }
        for (name, span) in [("baseDelay", baseDelay), ("maxDelay", maxDelay), ("maxRetryAfter", maxRetryAfter)]
        where span.seconds < 0 {
            throw InputError(path: "\(path).\(name)", reason: "must not be negative")
        }
        if timeout.seconds <= 0 { throw InputError(path: path + ".timeout", reason: "must be positive") }
        if maxConnections < 1 { throw InputError(path: path + ".maxConnections", reason: "must be 1 or more") }
        if let explicitKeys, explicitKeys.pool < 1 {
            throw InputError(path: path + ".explicitKeys.pool", reason: "must be 1 or more")
        }
    }
}

extension ClientSettings.ExplicitKeys: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["pool", "sameBody"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        pool = try container.decode(Int.self, forKey: AnyKey("pool"))
        sameBody = try container.decodeIfPresent(Bool.self, forKey: AnyKey("sameBody")) ?? true
    }
}

extension LoadSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["type", "concurrency", "sends", "duration", "rate", "maxInFlight", "stages"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        kind = try container.decodeIfPresent(Kind.self, forKey: AnyKey("type")) ?? .closed
        concurrency = try container.decodeIfPresent(Int.self, forKey: AnyKey("concurrency")) ?? concurrency
        sends = try container.decodeIfPresent(Int.self, forKey: AnyKey("sends"))
        duration = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("duration"))
        rate = try container.decodeIfPresent(Double.self, forKey: AnyKey("rate")) ?? rate
        maxInFlight = try container.decodeIfPresent(Int.self, forKey: AnyKey("maxInFlight")) ?? maxInFlight
        stages = try container.decodeIfPresent([Stage].self, forKey: AnyKey("stages")) ?? []
    }

    func validate(path: String) throws(InputError) {
        switch kind {
        case .closed:
            guard concurrency >= 1 && concurrency <= 100_000 else {
                throw InputError(path: path + ".concurrency", reason: "must be 1-100000")
            }
            guard sends != nil || duration != nil else {
                throw InputError(path: path, reason: "a closed load needs sends or duration (or both)")
            }
        case .open:
            guard stages.isEmpty ? duration != nil : true else {
                throw InputError(path: path + ".duration", reason: "an open load needs a duration (or stages)")
            }
            guard rate > 0, rate.isFinite else { throw InputError(path: path + ".rate", reason: "must be positive") }
            guard maxInFlight >= 1 else { throw InputError(path: path + ".maxInFlight", reason: "must be 1 or more") }
            for (index, stage) in stages.enumerated() {
                guard stage.rate > 0, stage.duration.seconds > 0 else {
                    throw InputError(path: "\(path).stages[\(index)]", reason: "rate and duration must be positive")
                }
            }
        }
        if let sends, sends < 1 { throw InputError(path: path + ".sends", reason: "must be 1 or more") }
        if let duration, duration.seconds <= 0 {
            throw InputError(path: path + ".duration", reason: "must be positive")
        }
    }
}

extension LoadSettings.Stage: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["rate", "duration"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        rate = try container.decode(Double.self, forKey: AnyKey("rate"))
        duration = try container.decode(TimeSpan.self, forKey: AnyKey("duration"))
    }
}

extension QuickSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys([
            "sends", "duration", "concurrency", "rate", "samples", "backgroundLoad", "soak", "assertions",
        ])
        let container = try decoder.container(keyedBy: AnyKey.self)
        sends = try container.decodeIfPresent(Int.self, forKey: AnyKey("sends"))
        duration = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("duration"))
        concurrency = try container.decodeIfPresent(Int.self, forKey: AnyKey("concurrency"))
        rate = try container.decodeIfPresent(Double.self, forKey: AnyKey("rate"))
        samples = try container.decodeIfPresent(Int.self, forKey: AnyKey("samples"))
        backgroundLoad = try container.decodeIfPresent(Int.self, forKey: AnyKey("backgroundLoad"))
        soak = try container.decodeIfPresent(Int.self, forKey: AnyKey("soak"))
        assertions = try container.decodeIfPresent([Assertion].self, forKey: AnyKey("assertions"))
    }
}

extension Scenario {
    /// The scenario as `--quick` runs it: the `quick` overrides, or a tenth of the load.
    public func quickened() -> Scenario {
        var copy = self
        if let quick {
            if let sends = quick.sends { copy.load.sends = sends }
            if let duration = quick.duration { copy.load.duration = duration }
            if let concurrency = quick.concurrency { copy.load.concurrency = concurrency }
            if let rate = quick.rate { copy.load.rate = rate }
            if let samples = quick.samples { copy.cancellation?.samples = samples }
            if let backgroundLoad = quick.backgroundLoad { copy.cancellation?.backgroundLoad = backgroundLoad }
            if let soak = quick.soak { copy.cancellation?.soak = soak }
            if let assertions = quick.assertions { copy.assertions = assertions }
        } else {
            copy.cancellation?.samples = max(10, (cancellation?.samples ?? 0) / 10)
            copy.cancellation?.soak = (cancellation?.soak ?? 0) / 10
            copy.load.sends = load.sends.map { max(20, $0 / 10) }
            copy.load.duration = load.duration.map { TimeSpan(seconds: max(0.5, $0.seconds / 10)) }
            copy.load.stages = load.stages.map {
                LoadSettings.Stage(rate: $0.rate, duration: $0.duration.scaled(by: 0.1))
            }
        }
        return copy
    }

    /// The plan with every duration multiplied by `timeScale`.
    public var scaledPlan: FaultPlan { timeScale == 1 ? plan : plan.scaled(by: timeScale) }
}

extension Scenario {
    /// The `bench_send_id` a send carries: its number, or its key group with an explicit key pool.
    public func benchID(_ sendID: Int) -> Int {
        client.explicitKeys.map { sendID % $0.pool } ?? sendID
    }
}
