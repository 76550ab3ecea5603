import FakeFrontmail
import Foundation
import Frontmail

extension Scenario: Decodable {
    static let fields: Set<String> = [
        "name", "description", "seed", "transport", "timeScale", "clock", "client", "load", "payload", "server", "plan",
        "probes",
        "assertions", "quick", "cancellation", "metastability", "status", "wallBudget", "timeZone",
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(Self.fields)
        func key(_ name: String) -> AnyKey { AnyKey(name) }
        // Required by validate() (a tune file's base takes the sweep's name instead).
        name = try container.decodeIfPresent(String.self, forKey: key("name")) ?? ""
        description = try container.decodeIfPresent(String.self, forKey: key("description")) ?? ""
        seed = try container.integer(UInt64.self, key("seed")) ?? 1
        transport = try container.decodeIfPresent(FrontEnd.self, forKey: key("transport")) ?? .inProcess
        timeScale = try container.decodeIfPresent(Double.self, forKey: key("timeScale")) ?? 1
        client = try container.decodeIfPresent(ClientSettings.self, forKey: key("client")) ?? ClientSettings()
        load = try container.decodeIfPresent(LoadSettings.self, forKey: key("load")) ?? LoadSettings()
        payload = try container.decodeIfPresent(PayloadProfile.self, forKey: key("payload")) ?? .contactForm
        server = try container.decodeIfPresent(EmulatorConfig.self, forKey: key("server")) ?? EmulatorConfig()
        plan = try container.decodeIfPresent(FaultPlan.self, forKey: key("plan")) ?? .none
        cancellation = try container.decodeIfPresent(CancellationSettings.self, forKey: key("cancellation"))
        metastability = try container.decodeIfPresent(MetastabilitySettings.self, forKey: key("metastability"))
        status = try container.decodeIfPresent(StatusSettings.self, forKey: key("status"))
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
        wallBudget = try container.decodeIfPresent(TimeSpan.self, forKey: key("wallBudget"))
        timeZone = try container.decodeIfPresent(String.self, forKey: key("timeZone"))
        let measuresRealTime = transport.crossesNetwork || cancellation != nil || load.calibratedRate != nil
        clock =
            try container.decodeIfPresent(ClockChoice.self, forKey: key("clock"))
            ?? (measuresRealTime ? .real : .virtual)
    }

    /// Reads, decodes and validates a scenario file. Errors are `FILE: field.path: reason`.
    public static func load(file: String) throws(InputFileError) -> Scenario {
        try load(data: InputFileError.read(file), file: file)
    }

    /// Decodes and validates a scenario file's bytes (read already, or carried in a shard's results).
    public static func load(data: Data, file: String) throws(InputFileError) -> Scenario {
        try InputFileError.decode(
            Scenario.self, from: data, file: file, complete: { $0.file = file },
            validate: { (scenario) throws(InputError) in try scenario.validate() })
    }

    public func validate() throws(InputError) {
        try Scenario.checkName(name, "name")
        try Scenario.checkDescription(description)
        guard timeScale >= 0.0001, timeScale <= 100 else {
            throw InputError(path: "timeScale", reason: "must be 0.0001-100 (0.01 runs 100× faster)")
        }
        try client.validate(path: "client")
        if let timeZone { try Self.checkTimeZone(timeZone, "timeZone") }
        for (path, budget) in [("wallBudget", wallBudget), ("quick.wallBudget", quick?.wallBudget)] {
            if let budget { try InputError.check(budget, path, positive: true) }
        }
        switch experiment {
        case .cancellation(let settings): try settings.validate(path: "cancellation")
        case .load: try load.validate(path: "load")
        }
        // What --quick runs is validated by the same rules (CI runs it).
        if let quick {
            try quick.validate(for: experiment)
            switch quickened().experiment {
            case .cancellation(let settings): try settings.validate(path: "quick")
            case .load: try quickened().load.validate(path: "quick")
            }
        }
        if load.calibratedRate?.of == .rawURLSession, !transport.crossesNetwork, experiment == .load {
            throw InputError(
                path: "load.rate.of", reason: "rawURLSession is a socket reference; this scenario runs in process")
        }
        if load.control != nil, !transport.crossesNetwork || experiment != .load {
            let instead = experiment == .load ? "runs in process" : "measures cancellation"
            throw InputError(
                path: "load.control",
                reason: "the control arm runs plain URLSession beside a socket load; this scenario \(instead)")
        }
        try checkClock()
        try checkPlannedWork()
        try server.validate(path: "server")
        try plan.validate(path: "plan")
        if let metastability {
            try metastability.validate(path: "metastability", scenario: self)
            try metastability.validate(path: "metastability", scenario: quickened())
        }
        if let status { try status.validate(path: "status", scenario: self) }
        for (index, assertion) in assertions.enumerated() {
            try assertion.validate(path: "assertions[\(index)]", in: self)
        }
        for (index, assertion) in (quick?.assertions ?? []).enumerated() {
            try assertion.validate(path: "quick.assertions[\(index)]", in: self)
        }
    }
}

extension Scenario {
    /// A name that becomes part of a folder or file name: letters, digits, `-` and `_`.
    /// The longest name: with a run id in front, a results folder's name stays far below the
    /// 255 bytes a file name may have (a 250-character name failed only after its run).
    static let maxNameLength = 100

    /// A description is a line or a paragraph for people (`list`, the report), not a document.
    static let maxDescriptionLength = 2000

    static func checkDescription(_ description: String) throws(InputError) {
        guard description.count <= maxDescriptionLength else {
            throw InputError(
                path: "description", reason: "is \(description.count) characters long; at most \(maxDescriptionLength)")
        }
    }

    static func checkName(_ name: String, _ path: String) throws(InputError) {
        guard !name.isEmpty else {
            throw InputError(path: path, reason: "is required (letters, digits, - or _; it names the results folder)")
        }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw InputError(path: path, reason: "must be letters, digits, - or _ (it names the results folder)")
        }
        guard name.utf8.count <= maxNameLength else {
            throw InputError(
                path: path,
                reason: "is \(name.utf8.count) bytes long; at most \(maxNameLength) (it names the results folder)")
        }
    }
}

extension Scenario {
    /// The longest one send can take in real time: every attempt to its timeout and every wait at
    /// its longest (the larger of maxDelay and maxRetryAfter), scaled; with its status reads, each
    /// as long.
    public var worstSendSeconds: Double {
        let waits = max(client.maxDelay.seconds, client.maxRetryAfter.seconds)
        let calls = 1 + Double(status.map { $0.reads + ($0.unknown > 0 ? 1 : 0) } ?? 0)
        return (Double(client.maxRetries + 1) * client.timeout.seconds + Double(client.maxRetries) * waits) * timeScale
            * calls
    }

    /// The longest one send can take on the run's clock: real seconds (scaled), or on virtual time
    /// policy seconds (`timeScale` has no effect there).
    public var worstSendRunSeconds: Double {
        clock == .virtual ? worstSendSeconds / timeScale : worstSendSeconds
    }

    /// At most an hour of real time per send, or a day of virtual time.
    public var plannedWorkLimit: Double { clock == .virtual ? 86_400 : 3600 }

    /// A run must end: one send may take at most `plannedWorkLimit`, whatever the faults.
    func checkPlannedWork() throws(InputError) {
        guard case .load = experiment, worstSendRunSeconds > plannedWorkLimit else { return }
        let time = clock == .virtual ? "virtual time" : "real time"
        let formula = clock == .virtual ? "" : ", × timeScale"
        throw InputError(
            path: "client",
            reason:
                "one send could take \(String(format: "%.0f", worstSendRunSeconds)) s of \(time) ((maxRetries+1) × timeout + maxRetries × max(maxDelay, maxRetryAfter)\(formula)\(status == nil ? "" : ", × the send and its status reads")); at most \(Int(plannedWorkLimit))"
        )
    }

    /// Virtual time only where nothing measures the real clock.
    func checkClock() throws(InputError) {
        guard clock == .virtual else { return }
        if !transport.runsOnVirtualTime {
            throw InputError(
                path: "clock",
                reason:
                    "'virtual' needs the inProcess transport: sockets, URLSession and the kernel run on the real clock")
        }
        if cancellation != nil {
            throw InputError(
                path: "clock", reason: "'virtual' cannot measure cancellation latency, which is real time; use 'real'")
        }
        if case .load = experiment, load.kind == .closed, load.sends == nil {
            throw InputError(
                path: "load.sends",
                reason:
                    "a closed load on virtual time needs sends: answers that take no virtual time would start sends without end within its duration"
            )
        }
        if load.calibratedRate != nil {
            throw InputError(
                path: "clock",
                reason: "'virtual' cannot calibrate a rate against real throughput; give load.rate, or use 'real'")
        }
    }

    /// The scenario as a run on virtual time sees it: policy time is simulated exactly, so
    /// `timeScale` is 1 and a load written in real time (`policyTime` false) becomes the policy-time
    /// load the scaled run emulated (durations divided by the file's `timeScale`, rates multiplied).
    /// Unchanged on the real clock, and when already applied.
    public func onVirtualTime() -> Scenario {
        guard clock == .virtual, declaredTimeScale == nil else { return self }
        var copy = self
        copy.declaredTimeScale = timeScale
        copy.timeScale = 1
        guard !load.policyTime, timeScale != 1 else { return copy }
        copy.load.policyTime = true
        copy.load.rate = load.rate * timeScale
        copy.load.duration = load.duration.map { TimeSpan(seconds: $0.seconds / timeScale) }
        copy.load.stages = load.stages.map {
            LoadSettings.Stage(rate: $0.rate * timeScale, duration: TimeSpan(seconds: $0.duration.seconds / timeScale))
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
