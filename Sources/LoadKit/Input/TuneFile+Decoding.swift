import FakeFrontmail
import Foundation
import Frontmail

extension TuneFile: Decodable {
    static let fields: Set<String> = [
        "name", "description", "base", "environments", "clients", "grid", "seeds", "default", "quick", "objective",
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(Self.fields)
        name = try container.decode(String.self, forKey: AnyKey("name"))
        description = try container.decodeIfPresent(String.self, forKey: AnyKey("description")) ?? ""
        base = try container.decode(Scenario.self, forKey: AnyKey("base"))
        // The sweep names its runs: a name in the base would be replaced without a word.
        guard base.name.isEmpty else {
            throw InputError(path: "base.name", reason: "the base takes the sweep's name (name); remove it")
        }
        environments = try container.decode([TuneEnvironment].self, forKey: AnyKey("environments"))
        clients = try container.decodeIfPresent(ClientScales.self, forKey: AnyKey("clients"))?.counts ?? []
        grid = try container.decode(PolicyGrid.self, forKey: AnyKey("grid"))
        seeds = try container.integer(Int.self, AnyKey("seeds")) ?? 3
        defaultPolicy = try container.decodeIfPresent(PolicyPoint.self, forKey: AnyKey("default")) ?? .sdkDefault
        quick = try container.decodeIfPresent(TuneQuick.self, forKey: AnyKey("quick"))
        objective = try container.decodeIfPresent(TuneObjective.self, forKey: AnyKey("objective")) ?? TuneObjective()
    }

    /// Reads, decodes and validates a tune file. Errors are `FILE: field.path: reason`.
    public static func load(file: String) throws(InputFileError) -> TuneFile {
        try InputFileError.decode(
            TuneFile.self, from: InputFileError.read(file), file: file,
            complete: { tune in
                tune.base.name = tune.name
                tune.file = file
            },
            validate: { (tune) throws(InputError) in try tune.validate() })
    }

    public func validate() throws(InputError) {
        try Scenario.checkName(name, "name")
        try Scenario.checkDescription(description)
        for (field, present) in [
            ("assertions", !base.assertions.isEmpty), ("metastability", base.metastability != nil),
            ("cancellation", base.cancellation != nil), ("quick", base.quick != nil),
        ] where present {
            throw InputError(
                path: "base.\(field)",
                reason: "a sweep judges every cell itself (environments carry metastability; quick is the file's own)")
        }
        try InputError.check(seeds, in: 1...100, "seeds")
        try objective.validate(path: "objective")
        guard !environments.isEmpty else { throw InputError(path: "environments", reason: "name at least one") }
        try InputError.check(environments.count, in: 1...200, "environments", unit: " environments")
        let names = try validateEnvironments()
        try Self.checkScales(clients, path: "clients")
        let scaled = quick?.clients != nil ? "quick.clients" : !clients.isEmpty ? "clients" : nil
        if let scaled, let index = environments.firstIndex(where: { $0.instances != nil }) {
            throw InputError(
                path: "environments[\(index)].instances",
                reason: "\(scaled) sets every environment's scale: give one of the two, not both")
        }
        try defaultPolicy.validate(path: "default")
        try grid.validate(path: "grid", defaultPolicy: defaultPolicy)
        try checkSize()
        if let quick {
            try quick.validate(path: "quick", environments: names, defaultPolicy: defaultPolicy)
            try quickened().checkSize(path: "quick")
        }
        let sweeps = quick == nil ? [self] : [self, quickened()]
        for sweep in sweeps { try sweep.checkLabels() }
        // Every cell must be a scenario the runner accepts (the worst send bounded, the
        // metastability window inside the load, …): checked here, before anything runs.
        for sweep in sweeps { try sweep.checkCells(numberedAs: environments) }
    }

    /// Scales of 1-1,000 client instances, at most 8, each once, ascending.
    static func checkScales(_ counts: [Int], path: String) throws(InputError) {
        guard counts.count <= maxScales else {
            throw InputError(path: path, reason: "at most \(maxScales) scales, not \(counts.count)")
        }
        for (index, count) in counts.enumerated() {
            try InputError.check(count, in: clientCounts, "\(path)[\(index)]")
            if index > 0, count <= counts[index - 1] {
                throw InputError(
                    path: "\(path)[\(index)]",
                    reason: "list the scales once each, ascending (\(count) after \(counts[index - 1]))")
            }
        }
    }

    /// Each environment valid, named once and in a place of the map of its own; their names.
    private func validateEnvironments() throws(InputError) -> Set<String> {
        var names: Set<String> = []
        for (index, environment) in environments.enumerated() {
            let path = "environments[\(index)]"
            guard names.insert(environment.name).inserted else {
                throw InputError(path: path + ".name", reason: "'\(environment.name)' names two environments")
            }
            try environment.validate(path: path)
            if let map = environment.map,
                let other = environments[..<index].firstIndex(where: { $0.map == map })
            {
                throw InputError(
                    path: path + ".map", reason: "environments[\(other)] has the same place in the map")
            }
        }
        return names
    }

    /// A cell is named by its policy's label: two policies that read alike (a listed point, or a
    /// budget crossed with one, that differs from the default below the label's resolution) would
    /// be two cells with one name.
    private func checkLabels() throws(InputError) {
        var labels: [String: PolicyPoint] = [:]
        for policy in policies {
            if let earlier = labels.updateValue(policy, forKey: policy.label), earlier != policy {
                throw InputError(
                    path: grid.points == nil ? "grid" : "grid.points",
                    reason:
                        "two policies read \(policy.label)\(policy == defaultPolicy || earlier == defaultPolicy ? ", one of them the default," : "") but differ: give values that differ in their label"
                )
            }
        }
    }

    /// Every cell of this sweep is a scenario the runner accepts; an error names the environment
    /// by its place in `numbering` (the file's list).
    private func checkCells(numberedAs numbering: [TuneEnvironment]) throws(InputError) {
        for (index, environment) in scaledEnvironments.enumerated() {
            for policy in policies {
                do {
                    try scenario(policy: policy, environment: environment, seed: 0).validate()
                } catch {
                    let name = environment.incident ?? environment.name
                    let index = numbering.firstIndex { $0.name == name } ?? index
                    throw InputError(
                        path: "environments[\(index)]",
                        reason:
                            "with policy \(policy.label): \(error.path.isEmpty ? "" : error.path + ": ")\(error.reason)"
                    )
                }
            }
        }
    }

    /// Checked from the grid's counts, before any policy is made (its values are distinct).
    func checkSize(path: String = "grid") throws(InputError) {
        let places = environments.count * max(1, clients.count)
        let cells = policyCount * places
        guard cells <= Self.maxCells else {
            let scaled = clients.count > 1 ? " at \(clients.count) scales" : ""
            throw InputError(
                path: path,
                reason:
                    "\(policyCount) policies × \(environments.count) environments\(scaled) = \(cells) cells; at most \(Self.maxCells) per sweep (narrow the grid or split the file)"
            )
        }
        guard cells * seeds <= Self.maxRuns else {
            throw InputError(
                path: path,
                reason:
                    "\(cells) cells × \(seeds) seeds = \(cells * seeds) runs; at most \(Self.maxRuns) per sweep (fewer seeds or a narrower grid)"
            )
        }
    }
}

extension PolicyPoint: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["maxRetries", "baseDelay", "maxDelay", "timeout", "budget"])
        let base = PolicyPoint.sdkDefault
        self.init(
            maxRetries: try container.integer(Int.self, AnyKey("maxRetries")) ?? base.maxRetries,
            baseDelay: try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("baseDelay")) ?? base.baseDelay,
            maxDelay: try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("maxDelay")) ?? base.maxDelay,
            timeout: try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("timeout")) ?? base.timeout,
            budget: try container.decodeIfPresent(BudgetSetting.self, forKey: AnyKey("budget")) ?? base.budget)
    }

    func validate(path: String) throws(InputError) {
        try InputError.check(maxRetries, in: 0...100, path + ".maxRetries")
        try InputError.check(baseDelay, path + ".baseDelay")
        try InputError.check(maxDelay, path + ".maxDelay")
        try InputError.check(timeout, path + ".timeout", positive: true)
    }
}

extension PolicyGrid: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "maxRetries", "baseDelay", "maxDelay", "timeout", "budget", "points",
        ])
        self.init(
            maxRetries: try Self.wholeNumbers(container, "maxRetries"),
            baseDelay: try container.decodeIfPresent([TimeSpan].self, forKey: AnyKey("baseDelay")),
            maxDelay: try container.decodeIfPresent([TimeSpan].self, forKey: AnyKey("maxDelay")),
            timeout: try container.decodeIfPresent([TimeSpan].self, forKey: AnyKey("timeout")),
            budget: try container.decodeIfPresent([BudgetSetting].self, forKey: AnyKey("budget")))
        points = try container.decodeIfPresent([PolicyPoint].self, forKey: AnyKey("points"))
    }

    /// A list of whole numbers, each one named by its place when it is not (`[1, 2.5]` had said
    /// only "The given data was not valid JSON.").
    static func wholeNumbers(_ container: KeyedDecodingContainer<AnyKey>, _ name: String) throws -> [Int]? {
        let path = InputError.path(container.codingPath + [AnyKey(name)])
        return try container.decodeIfPresent([Double].self, forKey: AnyKey(name))?.enumerated().map {
            index, value throws(InputError) in
            guard value.isFinite, value == value.rounded(), abs(value) <= 1e15 else {
                throw InputError(path: "\(path)[\(index)]", reason: "must be a whole number, not \(value)")
            }
            return Int(value)
        }
    }

    func validate(path: String, defaultPolicy: PolicyPoint) throws(InputError) {
        if let points { try validate(points, path: path) }
        for (field, count) in [
            ("maxRetries", maxRetries?.count), ("baseDelay", baseDelay?.count), ("maxDelay", maxDelay?.count),
            ("timeout", timeout?.count), ("budget", budget?.count),
        ] {
            if let count { try InputError.check(count, in: 1...100, "\(path).\(field)", unit: " values") }
        }
        for (index, value) in (maxRetries ?? []).enumerated() {
            try InputError.check(value, in: 0...100, "\(path).maxRetries[\(index)]")
        }
        for (field, spans) in [("baseDelay", baseDelay), ("maxDelay", maxDelay)] {
            for (index, span) in (spans ?? []).enumerated() { try InputError.check(span, "\(path).\(field)[\(index)]") }
        }
        for (index, span) in (timeout ?? []).enumerated() {
            try InputError.check(span, "\(path).timeout[\(index)]", positive: true)
        }
        try checkLabels(path: path, defaultPolicy: defaultPolicy)
    }

    /// Policies given as points: no axes beside them, each valid, each once, no budget where the
    /// grid's budget list crosses them.
    private func validate(_ points: [PolicyPoint], path: String) throws(InputError) {
        for (field, present) in [
            ("maxRetries", maxRetries != nil), ("baseDelay", baseDelay != nil), ("maxDelay", maxDelay != nil),
            ("timeout", timeout != nil),
        ] where present {
            throw InputError(
                path: "\(path).\(field)", reason: "give the policies as points or as axes to cross, not both")
        }
        try InputError.check(points.count, in: 1...1_000, path + ".points", unit: " policies")
        var labels: [String: Int] = [:]
        for (index, point) in points.enumerated() {
            try point.validate(path: "\(path).points[\(index)]")
            if budget != nil && point.budget != .none {
                throw InputError(
                    path: "\(path).points[\(index)].budget",
                    reason: "the grid's budget list is crossed with every point: leave the point's out")
            }
            if let earlier = labels.updateValue(index, forKey: point.label) {
                throw InputError(
                    path: "\(path).points[\(index)]",
                    reason: "reads \(point.label), as [\(earlier)] does: give each policy once")
            }
        }
    }

    /// A cell is named by its policy's label: two values of a field that read the same would make
    /// two cells of one name (300ms and 300.0001ms), and `compare` would keep one.
    private func checkLabels(path: String, defaultPolicy: PolicyPoint) throws(InputError) {
        typealias Value = (label: String, value: Double)
        func span(_ span: TimeSpan) -> Value { (PolicyPoint.short(span), span.seconds) }
        let fields: [(String, [Value]?, Value)] = [
            (
                "maxRetries", maxRetries?.map { (String($0), Double($0)) },
                (String(defaultPolicy.maxRetries), Double(defaultPolicy.maxRetries))
            ),
            ("baseDelay", baseDelay?.map(span), span(defaultPolicy.baseDelay)),
            ("maxDelay", maxDelay?.map(span), span(defaultPolicy.maxDelay)),
            ("timeout", timeout?.map(span), span(defaultPolicy.timeout)),
            ("budget", budget?.map { ($0.text, 0) }, (defaultPolicy.budget.text, 0)),
        ]
        for (field, values, fallback) in fields {
            var first: [String: Int] = [:]
            for (index, value) in (values ?? []).enumerated() {
                let at = "\(path).\(field)[\(index)]"
                if let earlier = first.updateValue(index, forKey: value.label) {
                    throw InputError(
                        path: at, reason: "reads \(value.label), as [\(earlier)] does: give each value once")
                }
                if value.label == fallback.label && value.value != fallback.value {
                    throw InputError(
                        path: at, reason: "reads \(value.label), as the default policy's value does, but is not it")
                }
            }
        }
    }
}

extension TuneObjective: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["deadline", "quantile", "compare"])
        deadline = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("deadline"))
        quantile = try container.decodeIfPresent(Double.self, forKey: AnyKey("quantile")) ?? 0.99
        compare = try container.decodeIfPresent([TimeSpan].self, forKey: AnyKey("compare")) ?? []
    }

    /// The deadlines a user feels: 100 ms to an hour, in whole milliseconds (so that two of them
    /// never print alike); at most 10 compared, each once; the quantile from 0.5 to 0.9999.
    static let deadlines = 0.1...3600.0

    func validate(path: String) throws(InputError) {
        func check(_ deadline: TimeSpan, _ path: String) throws(InputError) {
            let seconds = deadline.seconds
            guard seconds.isFinite, Self.deadlines.contains(seconds) else {
                let given = seconds.isFinite ? PolicyPoint.short(deadline) : "\(seconds)"
                throw InputError(path: path, reason: "must be 100ms-1h (a deadline a user feels), not \(given)")
            }
            guard (seconds * 1000).rounded() == seconds * 1000 else {
                throw InputError(path: path, reason: "must be a whole number of milliseconds, not \(seconds) s")
            }
        }
        if let deadline { try check(deadline, path + ".deadline") }
        try InputError.check(compare.count, in: 0...10, path + ".compare", unit: " deadlines")
        for (index, other) in compare.enumerated() {
            try check(other, "\(path).compare[\(index)]")
            if compare[..<index].contains(other) {
                throw InputError(
                    path: "\(path).compare[\(index)]", reason: "\(PolicyPoint.short(other)) is given twice")
            }
        }
        guard quantile.isFinite, quantile >= 0.5, quantile <= 0.9999 else {
            throw InputError(path: path + ".quantile", reason: "must be from 0.5 to 0.9999, not \(quantile)")
        }
    }
}

/// `clients`: one count or a list of them.
struct ClientScales: Decodable {
    var counts: [Int]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            counts = [count]
        } else if let counts = try? container.decode([Int].self), !counts.isEmpty {
            self.counts = counts
        } else {
            throw InputError(
                path: InputError.path(decoder.codingPath),
                reason: "must be a whole number of client instances or a non-empty list of them (1-1000 each)")
        }
    }
}
