import FakeFrontmail

/// When the cancel lands.
public enum CancellationPhase: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
    /// As the Task starts, before the first attempt.
    case beforeFirstAttempt
    /// While the server holds the request (it never answers).
    case inFlight
    /// During a backoff wait (503 with a 30 s Retry-After, in policy time).
    case backoff
    /// While the body is being read (headers sent, the body trickles).
    case slowBody
    /// At a uniformly random moment of a send that meets a mix of faults.
    case random

    /// No attempt can be on its way to the server at the cancel (one is held there, or the send
    /// waits in a backoff), so any later request of the send is a retry after the cancel: the phases
    /// `server_retries_after_cancel` judges.
    public var ledgerJudgesRetries: Bool { self == .inFlight || self == .slowBody || self == .backoff }
}

/// The `cancellation` section of a scenario file.
public struct CancellationSettings: Sendable, Hashable {
    public var phases: [CancellationPhase] = CancellationPhase.allCases
    public var samples = 200
    /// Other sends in flight on the same client for the "load" runs.
    public var backgroundLoad = 1024
    /// Also measure a plain URLSession.data(for:) (socket transport, in-flight phase).
    public var baseline = true
    /// Cancellations of the memory soak (0: none).
    public var soak = 0

    public init() {}
}

extension CancellationSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["phases", "samples", "backgroundLoad", "baseline", "soak"])
        self.init()
        phases = try container.decodeIfPresent([CancellationPhase].self, forKey: AnyKey("phases")) ?? phases
        samples = try container.integer(Int.self, AnyKey("samples")) ?? samples
        backgroundLoad = try container.integer(Int.self, AnyKey("backgroundLoad")) ?? backgroundLoad
        baseline = try container.decodeIfPresent(Bool.self, forKey: AnyKey("baseline")) ?? baseline
        soak = try container.integer(Int.self, AnyKey("soak")) ?? soak
    }

    func validate(path: String) throws(InputError) {
        if samples < 1 || samples > 1_000_000 { throw InputError(path: path + ".samples", reason: "must be 1-1000000") }
        if backgroundLoad < 0 || backgroundLoad > 20_000 {
            throw InputError(path: path + ".backgroundLoad", reason: "must be 0-20000")
        }
        if phases.isEmpty { throw InputError(path: path + ".phases", reason: "name at least one phase") }
        if soak < 0 || soak > 10_000_000 { throw InputError(path: path + ".soak", reason: "must be 0-10000000") }
    }
}
