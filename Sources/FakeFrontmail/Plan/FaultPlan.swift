import Foundation
import Frontmail

/// An ordered list of fault rules: the first rule that matches a request decides its fate; a
/// request no rule matches is served normally. Plus an optional capacity model.
///
/// Decisions draw from a generator seeded by (seed, idempotency key, attempt number, rule), so the
/// same plan and seed give the same faults whatever order requests arrive in.
public struct FaultPlan: Sendable, Hashable, Codable {
    public var rules: [FaultRule]
    public var capacity: CapacityModel?

    public init(rules: [FaultRule] = [], capacity: CapacityModel? = nil) {
        self.rules = rules
        self.capacity = capacity
    }

    public static let none = FaultPlan()

    private enum CodingKeys: String, CodingKey, CaseIterable { case rules, capacity }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        rules = try container.decodeIfPresent([FaultRule].self, forKey: .rules) ?? []
        capacity = try container.decodeIfPresent(CapacityModel.self, forKey: .capacity)
    }

    /// Checks every field; the error names the first bad one (`rules[1].action.status: …`).
    public func validate(path: String = "") throws(InputError) {
        func sub(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }
        for (index, rule) in rules.enumerated() {
            try rule.validate(path: sub("rules") + "[\(index)]")
        }
        try capacity?.validate(path: sub("capacity"))
    }

    /// Decodes and validates a plan from JSON; errors name the field.
    public static func decode(_ data: Data) throws(InputError) -> FaultPlan {
        let plan = try InputError.decode(FaultPlan.self, from: data)
        try plan.validate()
        return plan
    }

    /// Every duration (delays, windows, Retry-After seconds, service times) multiplied by `factor`.
    public func scaled(by factor: Double) -> FaultPlan {
        FaultPlan(rules: rules.map { $0.scaled(by: factor) }, capacity: capacity?.scaled(by: factor))
    }
}

/// Which API endpoint a request is for.
public enum Endpoint: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
    case send
    case status
    case publicConfig
    case uploads
    case other
}

public struct FaultRule: Sendable, Hashable, Codable {
    /// A label for reports (the ledger records the rule index).
    public var name: String?
    public var match: FaultMatch
    public var action: FaultAction
    /// The rule applies to at most this many requests (the first ones that match), then never.
    public var limit: Int?

    public init(name: String? = nil, match: FaultMatch = FaultMatch(), action: FaultAction, limit: Int? = nil) {
        self.name = name
        self.match = match
        self.action = action
        self.limit = limit
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case name, match, action, limit }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        match = try container.decodeIfPresent(FaultMatch.self, forKey: .match) ?? FaultMatch()
        action = try container.decode(FaultAction.self, forKey: .action)
        limit = try container.integer(Int.self, .limit)
    }

    func validate(path: String) throws(InputError) {
        if let limit { try InputError.check(limit, in: 1...1_000_000_000, path + ".limit") }
        try match.validate(path: path + ".match")
        try action.validate(path: path + ".action")
        if action.kind == .refuse {
            guard match.from != nil || match.to != nil else {
                throw InputError(path: path + ".match", reason: "a refuse rule needs a time window (from and/or to)")
            }
            guard match.endpoint == nil, match.attempt == nil, match.probability == nil, match.everyNth == nil,
                match.header == nil
            else {
                throw InputError(
                    path: path + ".match",
                    reason: "a refuse rule closes the listener, so it can only match on time (from, to)")
            }
        }
    }

    func scaled(by factor: Double) -> FaultRule {
        FaultRule(name: name, match: match.scaled(by: factor), action: action.scaled(by: factor), limit: limit)
    }
}

/// When a rule applies. Every condition given must hold; none given matches everything.
public struct FaultMatch: Sendable, Hashable, Codable {
    public var endpoint: Endpoint?
    /// The attempt number of this idempotency key (1 = the first time the server sees the key).
    public var attempt: AttemptRange?
    /// Time since the server started: the rule applies from `from` (inclusive) to `to` (exclusive).
    public var from: TimeSpan?
    public var to: TimeSpan?
    /// The chance the rule applies to a request that meets the other conditions.
    public var probability: Double?
    /// Applies to every Nth request that meets the other conditions (N, 2N, …).
    public var everyNth: Int?
    public var header: HeaderMatch?

    public init(
        endpoint: Endpoint? = nil, attempt: AttemptRange? = nil, from: TimeSpan? = nil, to: TimeSpan? = nil,
        probability: Double? = nil, everyNth: Int? = nil, header: HeaderMatch? = nil
    ) {
        self.endpoint = endpoint
        self.attempt = attempt
        self.from = from
        self.to = to
        self.probability = probability
        self.everyNth = everyNth
        self.header = header
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case endpoint, attempt, from, to, probability, everyNth, header
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        endpoint = try container.decodeIfPresent(Endpoint.self, forKey: .endpoint)
        attempt = try container.decodeIfPresent(AttemptRange.self, forKey: .attempt)
        from = try container.decodeIfPresent(TimeSpan.self, forKey: .from)
        to = try container.decodeIfPresent(TimeSpan.self, forKey: .to)
        probability = try container.decodeIfPresent(Double.self, forKey: .probability)
        everyNth = try container.integer(Int.self, .everyNth)
        header = try container.decodeIfPresent(HeaderMatch.self, forKey: .header)
    }

    func validate(path: String) throws(InputError) {
        if let probability, !(0...1).contains(probability) {
            throw InputError(path: path + ".probability", reason: "must be between 0 and 1")
        }
        if let everyNth { try InputError.check(everyNth, in: 1...1_000_000_000, path + ".everyNth") }
        if let from { try InputError.check(from, path + ".from") }
        if let to { try InputError.check(to, path + ".to", positive: true) }
        if let from, let to, to <= from { throw InputError(path: path + ".to", reason: "must be after from (\(from))") }
        if let attempt { try attempt.validate(path: path + ".attempt") }
        if let header {
            guard HeaderText.isToken(header.name) else {
                throw InputError(path: path + ".header.name", reason: "must be a header name")
            }
            for (field, text) in [("value", header.value), ("prefix", header.prefix)] {
                if let text, !HeaderText.isFieldValue(text) {
                    throw InputError(path: path + ".header.\(field)", reason: "must be printable text up to 8192 bytes")
                }
            }
        }
    }

    func scaled(by factor: Double) -> FaultMatch {
        var copy = self
        copy.from = from?.scaled(by: factor)
        copy.to = to?.scaled(by: factor)
        return copy
    }
}

/// `2` (exactly the second attempt) or `{"min": 1, "max": 3}` (either bound optional).
public struct AttemptRange: Sendable, Hashable, Codable {
    public var min: Int
    public var max: Int?

    public init(min: Int, max: Int?) {
        self.min = min
        self.max = max
    }

    public static func exactly(_ attempt: Int) -> AttemptRange { AttemptRange(min: attempt, max: attempt) }

    public func contains(_ attempt: Int) -> Bool { attempt >= min && attempt <= (max ?? .max) }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let value = try? single.decode(Int.self) {
            self = .exactly(value)
            return
        }
        let container = try decoder.strictContainer(["min", "max"])
        min = try container.integer(Int.self, AnyKey("min")) ?? 1
        max = try container.integer(Int.self, AnyKey("max"))
    }

    public func encode(to encoder: any Encoder) throws {
        if max == min {
            var single = encoder.singleValueContainer()
            try single.encode(min)
            return
        }
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(min, forKey: AnyKey("min"))
        try container.encodeIfPresent(max, forKey: AnyKey("max"))
    }

    func validate(path: String) throws(InputError) {
        if min < 1 { throw InputError(path: path, reason: "attempts are counted from 1") }
        try InputError.check(min, in: 1...1_000_000, path + ".min")
        if let max { try InputError.check(max, in: 1...1_000_000, path + ".max") }
        if let max, max < min { throw InputError(path: path + ".max", reason: "must be at least min (\(min))") }
    }
}

public struct HeaderMatch: Sendable, Hashable, Codable {
    public var name: String
    /// The exact value; nil matches any request that has the header.
    public var value: String?
    /// Matches values that start with this.
    public var prefix: String?

    public init(name: String, value: String? = nil, prefix: String? = nil) {
        self.name = name
        self.value = value
        self.prefix = prefix
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["name", "value", "prefix"])
        name = try container.decode(String.self, forKey: AnyKey("name"))
        value = try container.decodeIfPresent(String.self, forKey: AnyKey("value"))
        prefix = try container.decodeIfPresent(String.self, forKey: AnyKey("prefix"))
    }

    func matches(_ headers: FrontmailHTTPHeaders) -> Bool {
        guard let actual = headers[name] else { return false }
        if let value, actual != value { return false }
        if let prefix, !actual.hasPrefix(prefix) { return false }
        return true
    }
}
