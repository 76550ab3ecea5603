import FakeFrontmail
import Foundation

/// The cancellation probe of a scenario: every phase, idle and under load, the SDK and (over
/// sockets) the raw URLSession baseline, as summary rows and assertion metrics
/// `cancellation.<phase>.<idle|load>.<p50|p90|p99|max|aborted_ratio|attempts_after_cancel|…>`.
struct CancellationProbe {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]

    init(scenario: Scenario, progress: (String) -> Void) async throws {
        let settings = scenario.cancellation ?? CancellationSettings()
        var clients: [CancellationLatency.Client] = [.sdk]
        if settings.baseline && scenario.transport == .socket { clients.append(.rawURLSession) }
        var results: [CancellationLatency.Result] = []
        for client in clients {
            let phases = client == .sdk ? settings.phases : settings.phases.filter { $0 == .inFlight }
            guard !phases.isEmpty else { continue }
            for load in [0, settings.backgroundLoad] {
                progress("cancellation: \(client.rawValue), \(phases.count) phases, \(load) other sends in flight")
                results += try await CancellationLatency.measure(
                    client: client, phases: phases, samples: settings.samples, backgroundLoad: load,
                    transport: scenario.transport, timeScale: scenario.timeScale)
            }
        }
        (rows, metrics) = CancellationLatency.report(results, scenario: scenario.name)
        if settings.soak > 0 {
            progress("cancellation: memory soak, \(settings.soak) cancellations")
            let growth = try await CancellationLatency.soak(count: settings.soak)
            let perThousand = growth / Double(settings.soak) * 1000
            rows.append(
                SummaryRow(
                    scenario: scenario.name, probe: "cancellation", metric: "soak", statistic: "resident_growth",
                    value: growth, unit: "KiB"))
            rows.append(
                SummaryRow(
                    scenario: scenario.name, probe: "cancellation", metric: "soak", statistic: "cancellations",
                    value: Double(settings.soak), unit: "sends"))
            metrics["cancellation.soak.resident_growth"] = growth
            metrics["cancellation.soak.growth_per_1k"] = perThousand
        }
    }
}

/// The `cancellation` section of a scenario file.
public struct CancellationSettings: Sendable, Hashable {
    public var phases: [CancellationLatency.Phase] = CancellationLatency.Phase.allCases
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
        try decoder.rejectUnknownKeys(["phases", "samples", "backgroundLoad", "baseline", "soak"])
        let container = try decoder.container(keyedBy: AnyKey.self)
        self.init()
        phases = try container.decodeIfPresent([CancellationLatency.Phase].self, forKey: AnyKey("phases")) ?? phases
        samples = try container.decodeIfPresent(Int.self, forKey: AnyKey("samples")) ?? samples
        backgroundLoad = try container.decodeIfPresent(Int.self, forKey: AnyKey("backgroundLoad")) ?? backgroundLoad
        baseline = try container.decodeIfPresent(Bool.self, forKey: AnyKey("baseline")) ?? baseline
        soak = try container.decodeIfPresent(Int.self, forKey: AnyKey("soak")) ?? soak
    }

    func validate(path: String) throws(PlanError) {
        if samples < 1 || samples > 1_000_000 { throw PlanError(path: path + ".samples", reason: "must be 1-1000000") }
        if backgroundLoad < 0 || backgroundLoad > 20_000 {
            throw PlanError(path: path + ".backgroundLoad", reason: "must be 0-20000")
        }
        if phases.isEmpty { throw PlanError(path: path + ".phases", reason: "name at least one phase") }
        if soak < 0 || soak > 10_000_000 { throw PlanError(path: path + ".soak", reason: "must be 0-10000000") }
    }
}
