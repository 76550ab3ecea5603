import FakeFrontmail
import Foundation

/// One generated scenario in a shape the shrinker can make smaller. It becomes a scenario file's
/// JSON (`json`) and is read back through the same decoder and range checks as any file
/// (`scenario()`), so every case explore runs is a scenario `run` can replay.
///
/// Durations are whole microseconds and Retry-After values whole milliseconds, so a case prints
/// exactly and shrinks by integers.
struct ExploreCase: Sendable, Hashable {
    struct Client: Sendable, Hashable {
        var maxRetries = 3
        var baseDelay = 300_000
        var maxDelay = 10_000_000
        var maxRetryAfter = 60_000_000
        var timeout = 15_000_000
        /// `quota` or a percentage such as `20%`; nil: no budget.
        var budget: String?
        /// Caller keys from a pool of this size (sends that share one share the body); nil: the SDK's keys.
        var keyPool: Int?
    }

    enum Load: Sendable, Hashable {
        case closed(concurrency: Int, sends: Int)
        /// Sends per second for as long as `sends` take at that rate.
        case open(rate: Int, sends: Int)

        var sends: Int {
            switch self {
            case .closed(_, let sends), .open(_, let sends): return sends
            }
        }
    }

    struct Status: Sendable, Hashable {
        var reads = 1
        /// Percent of sends that also read an unknown message.
        var unknown = 0
        /// Percent of reads cancelled within `cancelWithin` microseconds of their start.
        var cancel = 0
        var cancelWithin = 1_000_000
    }

    enum RetryAfterSpelling: Sendable, Hashable {
        /// A number of milliseconds, written in seconds (`2`, `1.5`, `0`, `-3`).
        case seconds(milliseconds: Int)
        /// An IMF-fixdate this many seconds from the server's now.
        case httpDateIn(seconds: Int)
        /// Text that is neither a number nor a date.
        case text(String)
    }

    enum Fault: Sendable, Hashable {
        case respond(status: Int, retryAfter: RetryAfterSpelling?, body: String?)
        /// The answer `status` after `delay` microseconds (a drained case's failures, after the
        /// success before them: one instant would let a budget's events come in either order).
        case respondAfter(status: Int, delay: Int)
        case delay(Int)
        case slowBody(bytesPerSecond: Int)
        case hang
        case reset
        case close
        case truncate
        case commitThenDrop
        case commitThenDelay(Int)
        /// Connections refused from..to (microseconds since the server started).
        case refuse(from: Int, to: Int)

        /// The kind's name, as the plan spells its `type`.
        var kind: String {
            switch self {
            case .respond, .respondAfter: return "respond"
            case .delay: return "delay"
            case .slowBody: return "slowBody"
            case .hang: return "hang"
            case .reset: return "reset"
            case .close: return "close"
            case .truncate: return "truncate"
            case .commitThenDrop: return "commitThenDrop"
            case .commitThenDelay: return "commitThenDelay"
            case .refuse: return "refuse"
            }
        }
    }

    struct Rule: Sendable, Hashable {
        /// `send` or `status`; nil: any endpoint.
        var endpoint: String?
        var attempt: Int?
        /// Percent; nil: always.
        var probability: Int?
        var everyNth: Int?
        var limit: Int?
        var fault: Fault
    }

    struct Capacity: Sendable, Hashable {
        var workers: Int
        var serviceTime: Int
        var shed: Bool
    }

    var seed: UInt64
    var client = Client()
    var payload = "contactForm"
    var load = Load.closed(concurrency: 1, sends: 1)
    var status: Status?
    var rules: [Rule] = []
    var capacity: Capacity?
    /// Through URLSession over loopback on the SDK's own clock and timers (`explore --transport
    /// socket`); otherwise in-process on virtual time.
    var overSockets = false

    /// How big the case is, for the found file's name and the closing table: sends and plan rules.
    var size: (sends: Int, rules: Int) { (load.sends, rules.count + (capacity == nil ? 0 : 1)) }
}

// MARK: The scenario file

extension ExploreCase {
    /// The scenario file's JSON, keys sorted (the same case gives the same bytes).
    func json(name: String, description: String, assertions: [String] = []) -> String {
        var file: [String: Any] = [
            "name": name, "description": description, "seed": NSNumber(value: seed),
            "transport": overSockets ? "socket" : "inProcess", "clock": overSockets ? "real" : "virtual",
            "client": clientJSON, "payload": payloadJSON, "load": loadJSON,
            "plan": planJSON,
        ]
        if !assertions.isEmpty { file["assertions"] = assertions }
        if let status {
            file["status"] = [
                "reads": status.reads, "unknown": Double(status.unknown) / 100, "cancel": Double(status.cancel) / 100,
                "cancelWithin": Self.span(status.cancelWithin),
            ]
        }
        let data = try? JSONSerialization.data(withJSONObject: file, options: [.sortedKeys, .prettyPrinted])
        return data.flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    /// The case as the scenario `run` would read from its file.
    func scenario(name: String, description: String) throws(InputFileError) -> Scenario {
        try Scenario.load(data: Data(json(name: name, description: description).utf8), file: name + ".json")
    }

    static func span(_ micros: Int) -> String { "\(micros)us" }

    private var clientJSON: [String: Any] {
        var client: [String: Any] = [
            "maxRetries": self.client.maxRetries, "baseDelay": Self.span(self.client.baseDelay),
            "maxDelay": Self.span(self.client.maxDelay), "maxRetryAfter": Self.span(self.client.maxRetryAfter),
            "timeout": Self.span(self.client.timeout),
        ]
        if let budget = self.client.budget { client["budget"] = budget }
        if let pool = self.client.keyPool { client["explicitKeys"] = ["pool": pool, "sameBody": true] }
        return client
    }

    private var payloadJSON: Any {
        payload == "attachment" ? ["type": "attachment", "bytes": 2000] as [String: Any] : payload
    }

    private var loadJSON: [String: Any] {
        switch load {
        case .closed(let concurrency, let sends):
            return ["type": "closed", "concurrency": concurrency, "sends": sends]
        case .open(let rate, let sends):
            // Long enough for every send at the rate; `sends` stops it.
            let duration = max(1, (sends * 1_000_000 + rate - 1) / rate)
            return ["type": "open", "rate": rate, "sends": sends, "duration": Self.span(duration)]
        }
    }

    private var planJSON: [String: Any] {
        var plan: [String: Any] = ["rules": rules.map(\.json)]
        if let capacity {
            plan["capacity"] = [
                "workers": capacity.workers, "serviceTime": Self.span(capacity.serviceTime),
                "mode": capacity.shed ? "shed" : "queue",
            ]
        }
        return plan
    }
}

extension ExploreCase.Rule {
    var json: [String: Any] {
        var match: [String: Any] = [:]
        var action: [String: Any] = ["type": fault.kind]
        if case .refuse(let from, let to) = fault {
            // A refuse window's rule matches on time alone.
            match = ["from": ExploreCase.span(from), "to": ExploreCase.span(to)]
            return ["match": match, "action": action]
        }
        if let endpoint { match["endpoint"] = endpoint }
        if let attempt { match["attempt"] = attempt }
        if let probability { match["probability"] = Double(probability) / 100 }
        if let everyNth { match["everyNth"] = everyNth }
        switch fault {
        case .respond(let status, let retryAfter, let body):
            action["status"] = status
            if let retryAfter { action["retryAfter"] = retryAfter.json }
            if let body { action["body"] = body }
        case .respondAfter(let status, let micros):
            action["status"] = status
            action["delay"] = ExploreCase.span(micros)
        case .delay(let micros): action["delay"] = ExploreCase.span(micros)
        case .commitThenDelay(let micros): action["delay"] = ExploreCase.span(micros)
        case .slowBody(let rate): action["bytesPerSecond"] = rate
        case .hang, .reset, .close, .truncate, .commitThenDrop, .refuse: break
        }
        var rule: [String: Any] = ["match": match, "action": action]
        if let limit { rule["limit"] = limit }
        return rule
    }
}

extension ExploreCase.RetryAfterSpelling {
    var json: Any {
        switch self {
        case .seconds(let milliseconds):
            return milliseconds % 1000 == 0 ? milliseconds / 1000 as Any : Double(milliseconds) / 1000 as Any
        case .httpDateIn(let seconds): return ["httpDateIn": "\(seconds)s"]
        case .text(let text): return text
        }
    }
}
