/// The smaller cases to try in place of a failing one (Hypothesis-style greedy shrinking over the
/// case's structure): fewer rules and features first (a rule that hides the failure from a few
/// sends goes before the sends do), then fewer sends, simpler rules, smaller numbers. Every
/// candidate is strictly smaller by `weight`, so shrinking ends.
enum Shrinker {
    static func candidates(_ drawn: ExploreCase) -> [ExploreCase] {
        var candidates = Candidates(drawn: drawn)
        candidates.fewerFeatures()
        candidates.fewerSends()
        candidates.simplerRules()
        candidates.smallerNumbers()
        return candidates.list
    }

    /// The candidates, in the order they are tried: each strictly smaller than `drawn`, none twice.
    private struct Candidates {
        let drawn: ExploreCase
        var list: [ExploreCase] = []

        mutating func add(_ change: (inout ExploreCase) -> Void) {
            var copy = drawn
            change(&copy)
            if copy.weight < drawn.weight, !list.contains(copy) { list.append(copy) }
        }

        mutating func fewerFeatures() {
            // Fewer rules, features and options.
            for index in drawn.rules.indices { add { $0.rules.remove(at: index) } }
            add { $0.capacity = nil }
            add { $0.status = nil }
            add { $0.client.budget = nil }
            add { $0.client.keyPool = nil }
            add { $0.payload = "contactForm" }
            add { $0.load = .closed(concurrency: 1, sends: $0.load.sends) }
            if let status = drawn.status {
                add {
                    $0.status = ExploreCase.Status(
                        reads: 1, unknown: status.unknown, cancel: status.cancel, cancelWithin: status.cancelWithin)
                }
                add { $0.status?.unknown = 0 }
                add { $0.status?.cancel = 0 }
            }
        }

        mutating func fewerSends() {
            // Fewer sends: one, a few, half, one less; each also concentrated, where what broke needed
            // many sends to happen at all (a bucket emptied by 100 retries, a hundred jittered waits, a
            // cancel drawn for some reads): the sends left retry up to 100 times and cancel or read
            // unknown messages always.
            for sends in [1, 2, 3, drawn.load.sends / 2, drawn.load.sends - 1]
            where sends >= 1 && sends < drawn.load.sends {
                add { $0.load = $0.load.with(sends: sends) }
                add {
                    $0.load = $0.load.with(sends: sends)
                    $0.concentrate()
                }
            }
        }

        mutating func simplerRules() {
            // Simpler rules: conditions dropped, answers plainer.
            for (index, rule) in drawn.rules.enumerated() {
                add { $0.rules[index].probability = nil }
                add { $0.rules[index].everyNth = nil }
                add { $0.rules[index].limit = nil }
                add { $0.rules[index].attempt = nil }
                if rule.endpoint == nil { add { $0.rules[index].endpoint = "send" } }
                if case .respond(let status, let retryAfter, let body) = rule.fault {
                    if retryAfter != nil {
                        add { $0.rules[index].fault = .respond(status: status, retryAfter: nil, body: body) }
                    }
                    if body != nil {
                        add { $0.rules[index].fault = .respond(status: status, retryAfter: retryAfter, body: nil) }
                    }
                }
            }
        }

        mutating func smallerNumbers() {
            // Smaller numbers.
            add { $0.client.maxRetries = min($0.client.maxRetries, 1) }
            add { $0.client.maxRetries /= 2 }
            if drawn.client.maxRetries > 0 { add { $0.client.maxRetries -= 1 } }
            if case .closed(let concurrency, let sends) = drawn.load, concurrency > 1 {
                add { $0.load = .closed(concurrency: 1, sends: sends) }
                add { $0.load = .closed(concurrency: concurrency / 2, sends: sends) }
            }
        }
    }

    /// Drained first: a budget defect shows only once its bucket has emptied, which takes about 100
    /// failed retries (many sends at a few retries each), so greedy steps of one send less rarely
    /// get below dozens of sends. These few sequential sends with 100 retries stand behind two
    /// rules: the first 100 or 101 send requests fail (503), so the first send empties the bucket,
    /// ending on a retried success or a failure; then every second one fails, so a success and a
    /// failure that must be retried follow. The budget as drawn, and 100 % (one success earns one
    /// retry); the case's own rules dropped, or kept behind the two under a few neighbouring seeds.
    /// Tried once, before the greedy steps (at every step they would use up a shrink's runs).
    static func drained(_ drawn: ExploreCase) -> [ExploreCase] {
        guard let budget = drawn.client.budget else { return [] }
        var list: [ExploreCase] = []
        for sends in [2, 3] where sends < drawn.load.sends {
            for failing in [100, 101] {
                for budget in budget == "100%" ? [budget] : [budget, "100%"] {
                    for keepRules in [false, true] {
                        for offset in UInt64(0)..<(keepRules ? 3 : 1) {
                            var copy = drawn
                            copy.drainedFirst(sends: sends, failing: failing, budget: budget, keepRules: keepRules)
                            copy.seed &+= offset
                            if copy.weight < drawn.weight, !list.contains(copy) { list.append(copy) }
                        }
                    }
                }
            }
        }
        return list
    }
}

extension ExploreCase {
    /// More of what a few sends do: the client retries up to 100 times (a bucket emptied, a
    /// hundred jittered waits), and status reads that cancel or read unknown messages sometimes do
    /// it always.
    mutating func concentrate() {
        client.maxRetries = max(client.maxRetries, 100)
        if let status {
            if status.cancel > 0 { self.status?.cancel = 100 }
            if status.unknown > 0 { self.status?.unknown = 100 }
        }
    }
}

extension ExploreCase {
    /// `sends` sequential sends of a client with `budget` and 100 retries, behind two rules: the
    /// first `failing` send requests fail (503), then every second one does, 1 ms after it arrives
    /// (after the success before it); the case's own rules after them (`keepRules`) or none.
    mutating func drainedFirst(sends: Int, failing: Int, budget: String, keepRules: Bool) {
        load = .closed(concurrency: 1, sends: sends)
        client.budget = budget
        client.maxRetries = 100
        rules =
            [
                ExploreCase.Rule(
                    endpoint: "send", limit: failing, fault: .respond(status: 503, retryAfter: nil, body: nil)),
                ExploreCase.Rule(endpoint: "send", everyNth: 2, fault: .respondAfter(status: 503, delay: 1_000)),
            ] + (keepRules ? rules : [])
    }
}

extension ExploreCase.Load {
    func with(sends: Int) -> ExploreCase.Load {
        switch self {
        case .closed(let concurrency, _): return .closed(concurrency: min(concurrency, sends), sends: sends)
        case .open(let rate, _): return .open(rate: rate, sends: sends)
        }
    }
}

extension ExploreCase {
    /// How big a case is, for the shrinker: every step must lower it. Sends weigh most, then rules
    /// and features, then conditions, then numbers.
    var weight: Int {
        var weight = load.sends * 1_000_000 + rules.count * 10_000
        if capacity != nil { weight += 10_000 }
        if let status {
            weight += 5_000 + status.reads * 100 + (status.unknown > 0 ? 100 : 0) + (status.cancel > 0 ? 100 : 0)
        }
        if client.budget != nil { weight += 5_000 }
        if client.keyPool != nil { weight += 5_000 }
        if payload != "contactForm" { weight += 1_000 }
        if case .open = load { weight += 1_000 }
        if case .closed(let concurrency, _) = load { weight += min(concurrency, 999) }
        for rule in rules {
            weight += [rule.probability, rule.everyNth, rule.limit, rule.attempt].compactMap { $0 }.count * 1_000
            if rule.endpoint == nil { weight += 500 }
            if case .respond(_, let retryAfter, let body) = rule.fault {
                weight += (retryAfter == nil ? 0 : 500) + (body == nil ? 0 : 500)
            }
        }
        return weight + min(client.maxRetries, 100) * 2
    }
}
