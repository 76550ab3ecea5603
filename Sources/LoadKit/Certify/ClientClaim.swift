import FakeFrontmail
import Foundation

/// What a certified client says of its own retries (`certify --policy FILE`, docs/certify.md): its
/// waits are judged against this claim, and a client that claims one attempt is not judged on
/// retrying at all (those cases are NOT APPLICABLE). Nothing else in a verdict comes from it.
package struct ClientClaim: Sendable, Hashable, Decodable {
    /// How a wait is drawn from its cap, `min(maxDelay, baseDelay × multiplier^k)` before retry k+1.
    package enum Jitter: String, Sendable, Hashable, CaseIterable, InputChoice {
        /// Uniform on [0, cap) (the contract's, §4.3).
        case full
        /// Uniform on [cap/2, cap).
        case equal
        /// Exactly the cap.
        case none
        /// The cap plus a uniform draw on [0, `jitterMax`), the sum clamped at `maxDelay`
        /// (stamina's).
        case additive
        /// Not said: the waits are only reported.
        case unknown
    }

    /// Shown in the reports (1-80 printable characters).
    package var name: String
    /// Requests per logical send at the most, the first included (1-20; 1: the client never retries).
    package var maxAttempts: Int
    package var baseDelay: TimeSpan
    package var maxDelay: TimeSpan
    /// The cap's growth per retry (1-10; 1: a constant wait, 2: doubling).
    package var multiplier: Double
    package var jitter: Jitter
    /// The most an additive jitter adds to the cap (with `jitter` `additive` only: 1 ms-600 s).
    package var jitterMax: TimeSpan?
    /// The longest one attempt may take before the client gives up on it (nil: no limit).
    package var timeout: TimeSpan?
    /// Whether the client reads a sent message's status (`GET /v1/messages/{id}`) when a case asks
    /// it to (`FRONTMAIL_STATUS_READS=1`); without it the status cases are NOT APPLICABLE.
    package var statusReads: Bool
    /// The cap before each retry, when the client's schedule is not `baseDelay × multiplier^k`
    /// (urllib3 retries the first time at once): the last one stands for every later retry.
    package var delays: [TimeSpan]?

    package init(
        name: String, maxAttempts: Int, baseDelay: TimeSpan, maxDelay: TimeSpan, multiplier: Double = 2,
        jitter: Jitter, timeout: TimeSpan?, delays: [TimeSpan]? = nil, statusReads: Bool = false,
        jitterMax: TimeSpan? = nil
    ) {
        self.name = name
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.jitterMax = jitterMax
        self.timeout = timeout
        self.delays = delays
        self.statusReads = statusReads
    }

    /// The Swift SDK's defaults (`RetryPolicy()`, 15 s per attempt), as the contract states them.
    package static let contractDefaults = ClientClaim(
        name: "contract defaults", maxAttempts: 4, baseDelay: TimeSpan(seconds: 0.3),
        maxDelay: TimeSpan(seconds: 10), jitter: .full, timeout: TimeSpan(seconds: 15))

    /// Whether the client retries at all.
    package var retries: Bool { maxAttempts > 1 }

    /// The cap of the wait before retry `retry` (0-based: the wait after the first attempt is 0).
    package func cap(retry: Int) -> Double {
        if let delays, let last = delays.last { return (retry < delays.count ? delays[retry] : last).seconds }
        return min(maxDelay.seconds, baseDelay.seconds * pow(multiplier, Double(retry)))
    }

    /// The waits the claimed jitter may draw before retry `retry`: its lowest and its width (a
    /// uniform draw on [low, low + width); width 0 for no jitter), or nil when the claim does
    /// not say (`unknown`).
    package func draw(retry: Int) -> (low: Double, width: Double)? {
        let cap = cap(retry: retry)
        switch jitter {
        case .full: return (0, cap)
        case .equal: return (cap / 2, cap / 2)
        case .none: return (cap, 0)
        case .additive:
            // Clamped at maxDelay: where the clamp bites, the draw is no longer uniform, and only
            // its range is stated (width to the clamp).
            let low = min(maxDelay.seconds, cap)
            return (low, min(maxDelay.seconds, cap + (jitterMax?.seconds ?? 0)) - low)
        case .unknown: return nil
        }
    }

    /// Whether retry `retry`'s wait is a uniform draw over the whole of `draw(retry:)`: not so
    /// for an additive jitter the clamp at maxDelay cuts.
    package func drawIsUniform(retry: Int) -> Bool {
        guard let draw = draw(retry: retry), draw.width > 0 else { return false }
        return jitter != .additive || cap(retry: retry) + (jitterMax?.seconds ?? 0) <= maxDelay.seconds
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, maxAttempts, baseDelay, maxDelay, multiplier, jitter, jitterMax, timeout, delays, statusReads
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        maxAttempts = try container.requiredInteger(Int.self, .maxAttempts)
        baseDelay = try container.decode(TimeSpan.self, forKey: .baseDelay)
        maxDelay = try container.decode(TimeSpan.self, forKey: .maxDelay)
        multiplier = try container.decodeIfPresent(Double.self, forKey: .multiplier) ?? 2
        jitter = try container.decode(Jitter.self, forKey: .jitter)
        jitterMax = try container.decodeIfPresent(TimeSpan.self, forKey: .jitterMax)
        timeout = try container.decodeIfPresent(TimeSpan.self, forKey: .timeout)
        delays = try container.decodeIfPresent([TimeSpan].self, forKey: .delays)
        statusReads = try container.decodeIfPresent(Bool.self, forKey: .statusReads) ?? false
    }

    /// The range checks; the error names the field.
    package func validate() throws(InputError) {
        guard (1...80).contains(name.count), name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw InputError(path: "name", reason: "must be 1-80 printable characters") }
        try InputError.check(maxAttempts, in: 1...20, "maxAttempts")
        try InputError.check(baseDelay.seconds, in: 0...600, "baseDelay", unit: " s")
        try InputError.check(maxDelay.seconds, in: 0...3600, "maxDelay", unit: " s")
        guard maxDelay >= baseDelay else {
            throw InputError(path: "maxDelay", reason: "must be at least baseDelay (\(baseDelay))")
        }
        guard multiplier.isFinite else { throw InputError(path: "multiplier", reason: "must be 1-10") }
        try InputError.check(multiplier, in: 1...10, "multiplier")
        switch (jitter, jitterMax) {
        case (.additive, nil):
            throw InputError(path: "jitterMax", reason: "is required with jitter \"additive\" (the most it adds)")
        case (.additive, let most?): try InputError.check(most.seconds, in: 0.001...600, "jitterMax", unit: " s")
        case (_, nil): break
        case (_, _?): throw InputError(path: "jitterMax", reason: "is only read with jitter \"additive\"")
        }
        if let timeout { try InputError.check(timeout.seconds, in: 0.01...600, "timeout", unit: " s") }
        if let delays {
            try InputError.check(delays.count, in: 1...20, "delays", unit: " entries")
            for (index, delay) in delays.enumerated() {
                try InputError.check(delay.seconds, in: 0...3600, "delays[\(index)]", unit: " s")
            }
        }
    }

    /// Reads and checks a claim file: errors are `FILE: field: reason`.
    package static func load(file: String) throws(InputFileError) -> ClientClaim {
        try InputFileError.decode(
            ClientClaim.self, from: InputFileError.read(file), file: file,
            validate: { (claim) throws(InputError) in try claim.validate() })
    }
}
