import FakeFrontmail
import Foundation
import Frontmail

/// The cancellation experiment of a scenario (its `cancellation` section, instead of a load):
/// every phase, idle and under load, the SDK and (over sockets) the raw URLSession baseline, as
/// summary rows and metrics `cancellation.<phase>.<idle|load>.<p50|p90|p99|max|aborted_ratio|…>`.
enum CancellationExperiment {
    /// `wrap` and `clock` are the suite's test seams around the SDK's transport (a deliberately slow
    /// client) and, in the memory soak, its clock (a client whose cancelled waits hold memory).
    static func run(
        _ scenario: Scenario, settings: CancellationSettings,
        wrap: (@Sendable (any FrontmailTransport) -> any FrontmailTransport)? = nil,
        clock: (@Sendable (any FrontmailScheduler) -> any FrontmailScheduler)? = nil, progress: (String) -> Void
    ) async throws -> Measurement {
        let started = Date()
        var clients: [CancellationLatency.Client] = [.sdk]
        if settings.baseline && scenario.transport.crossesNetwork { clients.append(.rawURLSession) }
        var results: [CancellationLatency.Result] = []
        for client in clients {
            let phases = client == .sdk ? settings.phases : settings.phases.filter { $0 == .inFlight }
            guard !phases.isEmpty else { continue }
            for load in Set([0, settings.backgroundLoad]).sorted() {
                progress("cancellation: \(client.rawValue), \(phases.count) phases, \(load) other sends in flight")
                results += try await CancellationLatency.measure(
                    client: client, phases: phases, samples: settings.samples, backgroundLoad: load,
                    transport: scenario.transport, timeScale: scenario.timeScale, wrap: wrap)
            }
        }
        var measurement = Measurement()
        (measurement.rows, measurement.metrics) = CancellationLatency.report(results, scenario: scenario.name)
        if settings.soak > 0 {
            var soak = MetricRecorder(scenario: scenario.name)
            for phase in CancellationLatency.SoakPhase.allCases {
                progress(
                    "cancellation: memory soak, \(settings.soak) cancellations \(phase == .inFlight ? "in flight" : "in a backoff")"
                )
                let growth = try await CancellationLatency.soak(
                    count: settings.soak, phase: phase, clock: clock?(SystemClock()))
                let inBackoff = phase != .inFlight
                soak.record(.cancellationSoak(.residentGrowth, inBackoff: inBackoff), growth.resident)
                soak.record(.cancellationSoak(.heapGrowth, inBackoff: inBackoff), growth.heap)
                soak.record(.cancellationSoak(.growthPerThousand, inBackoff: inBackoff), growth.perThousand)
            }
            soak.record(.cancellationSoakCancellations, Double(settings.soak))
            measurement.rows += soak.rows
            measurement.metrics.merge(soak.metrics) { $1 }
        }
        measurement.interrupted = Task.isCancelled
        measurement.elapsed = Date().timeIntervalSince(started)
        measurement.addRunRows(scenario: scenario.name, timeScale: nil)
        return measurement
    }
}
