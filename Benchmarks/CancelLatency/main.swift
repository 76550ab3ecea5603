import Foundation
import LoadKit

// Cancellation latency of the SDK against a raw URLSession baseline, idle and with 1,024 other
// sends in flight on the same client, over real sockets on 127.0.0.1: cancel while the server holds
// the request. (The scenario runner's cancellation probe covers every phase; see
// scenarios/cancellation-*.json.)
//
//   swift run -c release CancelLatency [--samples N] [--load N] [--out FILE.csv]

let arguments: Arguments
do {
    arguments = try Arguments(
        Array(CommandLine.arguments.dropFirst()),
        spec: Arguments.Spec(options: ["samples", "load", "out"], flags: ["help"]))
} catch {
    FileHandle.standardError.write(Data("CancelLatency: \(error)\n".utf8))
    exit(64)
}
if arguments.flag("help") {
    print("usage: CancelLatency [--samples N (200)] [--load N (1024)] [--out FILE.csv]")
    exit(0)
}
let samples = (try? arguments.integer("samples")) ?? 200
let load = (try? arguments.integer("load")) ?? 1024

var results: [CancellationLatency.Result] = []
for client in CancellationLatency.Client.allCases {
    for background in [0, load] {
        FileHandle.standardError.write(Data("measuring \(client.rawValue) with \(background) sends in flight…\n".utf8))
        results += try await CancellationLatency.measure(
            client: client, phases: [.inFlight], samples: samples, backgroundLoad: background)
    }
}
let rows = CancellationLatency.report(results, scenario: "cancel_latency").rows
let csv = SummaryCSV.render(rows, runID: RunID.make())
if let out = arguments.value("out") {
    try csv.write(toFile: out, atomically: true, encoding: .utf8)
}
print(csv, terminator: "")
for result in results {
    func ms(_ quantile: Double, _ histogram: Histogram) -> String {
        String(format: "%.3f", histogram.value(at: quantile) / 1e6)
    }
    print(
        "\(result.client.rawValue) load=\(result.backgroundLoad): cancel→error p50 \(ms(0.5, result.latency)) ms, "
            + "p99 \(ms(0.99, result.latency)) ms, max \(ms(1, result.latency)) ms; codes \(result.codes); "
            + "server close p50 \(ms(0.5, result.serverClose)) ms; attempts after cancel \(result.attemptsAfterCancel)")
}
