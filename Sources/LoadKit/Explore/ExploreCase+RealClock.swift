import Foundation

extension ExploreCase {
    /// The longest a case over sockets may run before it is a hang (`HangWatch`): the bounds below
    /// keep a healthy case to a few seconds at worst.
    static let realClockLimit = 60.0

    /// The case bounded for the real clock, over sockets: every wait short (a backoff of at most
    /// 20 ms growing to 100 ms, attempts of 300 ms-1 s, Retry-After honoured up to 1 s, delays and
    /// refuse windows of at most 150 ms, status reads cancelled within 20 ms), at most 16 sends, at least a quarter of them at once.
    /// What the properties judge does not depend on a wait's length, so a bounded case searches
    /// the same decisions as the one on virtual time in real seconds a search can afford. A bounded
    /// case is its own bound (the shrinker's candidates are bounded again).
    func onRealClock() -> ExploreCase {
        var bounded = self
        bounded.overSockets = true
        bounded.client.maxRetries = min(client.maxRetries, 3)
        bounded.client.baseDelay = min(client.baseDelay, 20_000)
        bounded.client.maxDelay = min(client.maxDelay, 100_000)
        bounded.client.maxRetryAfter = min(client.maxRetryAfter, 1_000_000)
        let timeouts = 300_000..<1_000_000
        bounded.client.timeout = timeouts.contains(client.timeout) ? client.timeout : 300_000 + client.timeout % 700_000
        let sends = min(load.sends, 16)
        if let pool = client.keyPool { bounded.client.keyPool = min(pool, sends) }
        switch load {
        case .closed(let concurrency, _):
            bounded.load = .closed(concurrency: min(sends, max(concurrency, (sends + 3) / 4)), sends: sends)
        case .open(let rate, _):
            bounded.load = .open(rate: max(rate, 50), sends: sends)
        }
        // A read over loopback takes about a millisecond: cancels within 10 µs-20 ms land in it.
        if let within = status?.cancelWithin, within > 20_000 { bounded.status?.cancelWithin = within / 100 }
        bounded.rules = rules.map { rule in
            var rule = rule
            rule.fault = rule.fault.onRealClock
            return rule
        }
        bounded.capacity?.serviceTime = min(capacity?.serviceTime ?? 0, 5_000)
        return bounded
    }
}

extension ExploreCase.Fault {
    /// The fault with its waits at most 150 ms and a trickle of at least 20 kB/s.
    fileprivate var onRealClock: ExploreCase.Fault {
        let most = 150_000
        switch self {
        case .respondAfter(let status, let delay): return .respondAfter(status: status, delay: min(delay, most))
        case .delay(let delay): return .delay(min(delay, most))
        case .commitThenDelay(let delay): return .commitThenDelay(min(delay, most))
        case .slowBody(let rate): return .slowBody(bytesPerSecond: max(rate, 20_000))
        case .refuse(let from, let to):
            return .refuse(from: min(from, most), to: min(from, most) + min(to - from, most))
        case .respond, .hang, .reset, .close, .truncate, .commitThenDrop: return self
        }
    }
}
