import FakeFrontmail
import Foundation

/// `"status": {"reads": 2, "unknown": 0.2, "cancel": 0.2, "cancelWithin": "2s"}`: after each send
/// that succeeds, the load reads its delivery status with `status(messageID:statusToken:)`, through
/// the same plan as the sends (rules with `"endpoint": "status"` hit only the reads). A fraction of
/// sends also reads a message the server does not know (an unknown id or another token: a 404 that
/// must not be retried), and a fraction of the reads is cancelled at a moment drawn uniformly in
/// `cancelWithin` (policy time) after it starts, in an attempt or in a backoff wait.
public struct StatusSettings: Sendable, Hashable {
    /// Reads of each sent message.
    public var reads = 1
    /// The fraction of sends that also read an unknown message.
    public var unknown = 0.0
    /// The fraction of reads of sent messages that are cancelled.
    public var cancel = 0.0
    /// A cancelled read is cancelled this long after its start at the latest (policy time).
    public var cancelWithin = TimeSpan(seconds: 1)

    public init() {}

    static let fields: Set<String> = ["reads", "unknown", "cancel", "cancelWithin"]

    func validate(path: String, scenario: Scenario) throws(InputError) {
        try InputError.check(reads, in: 1...100, path + ".reads")
        for (name, fraction) in [("unknown", unknown), ("cancel", cancel)] {
            guard fraction >= 0, fraction <= 1 else {
                throw InputError(path: path + "." + name, reason: "must be a fraction 0-1")
            }
        }
        try InputError.check(cancelWithin, path + ".cancelWithin", positive: true)
        guard case .load = scenario.experiment else {
            throw InputError(
                path: path, reason: "status reads follow a load's sends; this scenario measures cancellation")
        }
        guard scenario.probes.contains(.outcome) else {
            throw InputError(
                path: path, reason: "status reads are judged beside the outcome probe, which this scenario does not run"
            )
        }
    }

    /// Whether the `salt`-th choice for send `number` falls in `fraction` (seeded by the scenario,
    /// the same in every run and in every shard of one).
    static func draw(_ fraction: Double, seed: UInt64, number: Int, salt: Int) -> Double? {
        let unit = Double(Fingerprint.of("status:\(seed):\(number):\(salt)".utf8) >> 11) / Double(1 << 53)
        return unit < fraction ? unit / fraction : nil
    }
}

extension StatusSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(Self.fields)
        self.init()
        reads = try container.integer(Int.self, AnyKey("reads")) ?? reads
        unknown = try container.decodeIfPresent(Double.self, forKey: AnyKey("unknown")) ?? unknown
        cancel = try container.decodeIfPresent(Double.self, forKey: AnyKey("cancel")) ?? cancel
        cancelWithin = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("cancelWithin")) ?? cancelWithin
    }
}
