import Foundation
import LoadKit

// Cancellation latency of the SDK against a raw URLSession baseline over real sockets on
// 127.0.0.1, against the number of other sends in flight on the same client: cancel while the
// server holds the request. Per load: the latency, the phase's wall time, the CPU seconds of the
// client's threads and of the fake server's event loop, and the connections the server opened.
// (The scenario runner's cancellation experiment covers every phase; see
// scenarios/cancellation-*.json and docs/cancellation.md.)
//
//   swift run -c release CancelLatency [--samples N] [--loads 0,64,256,1024] [--out FILE.csv]
//
// With --held-cpu, instead: the CPU the client spends while the server holds N plain URLSession
// requests (docs/urlsession-linux.md).

let arguments: Arguments
do {
    arguments = try Arguments(
        Array(CommandLine.arguments.dropFirst()),
        spec: Arguments.Spec(options: ["samples", "loads", "out"], flags: ["help", "held-cpu"]))
} catch {
    FileHandle.standardError.write(Data("CancelLatency: \(error)\n".utf8))
    exit(64)
}
if arguments.flag("help") {
    print("usage: CancelLatency [--samples N (200)] [--loads N,N,… (0,64,256,1024)] [--out FILE.csv] [--held-cpu]")
    exit(0)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CancelLatency: \(message)\n".utf8))
    exit(64)
}

let samples: Int
do {
    samples = try arguments.integer("samples") ?? 200
} catch {
    fail("\(error)")
}
guard (1...100_000).contains(samples) else { fail("--samples must be 1-100000") }
var loads: [Int] = []
for word in (arguments.value("loads") ?? "0,64,256,1024").split(separator: ",", omittingEmptySubsequences: false) {
    guard let load = Int(word), (0...4096).contains(load) else {
        fail("--loads: '\(word)' is not a number of sends in flight from 0 to 4096")
    }
    loads.append(load)
}
guard !loads.isEmpty, loads.count <= 16 else { fail("--loads takes 1-16 loads") }

if arguments.flag("held-cpu") {
    var recorder = SummaryBuilder(scenario: "held_request_cpu")
    for load in loads {
        let result = try await HeldRequestCPU.measure(held: load, seconds: 2)
        let cell = "held_\(load)"
        recorder.add("held_cpu", cell, "client_cpu_per_s", result.clientCPUSeconds / result.seconds, "cores")
        recorder.add("held_cpu", cell, "server_cpu_per_s", result.serverCPUSeconds / result.seconds, "cores")
        recorder.add("held_cpu", cell, "connections_opened", Double(result.connectionsOpened), "connections")
        print(
            String(
                format: "%4d requests held: client %.2f cores, server %.2f cores, %d connections opened", load,
                result.clientCPUSeconds / result.seconds, result.serverCPUSeconds / result.seconds,
                result.connectionsOpened))
    }
    let csv = SummaryCSV.render(recorder.rows, runID: RunID.make())
    if let out = arguments.value("out") { try csv.write(toFile: out, atomically: true, encoding: .utf8) }
    exit(0)
}

var rows: [SummaryRow] = []
var lines: [String] = []
for load in loads {
    var results: [CancellationLatency.Result] = []
    for client in CancellationLatency.Client.allCases {
        FileHandle.standardError.write(Data("measuring \(client.rawValue) with \(load) sends in flight…\n".utf8))
        results += try await CancellationLatency.measure(
            client: client, phases: [.inFlight], samples: samples, backgroundLoad: load)
    }
    rows += CancellationLatency.report(results, scenario: "cancel_latency_\(load)").rows
    for result in results {
        func ms(_ quantile: Double) -> String { String(format: "%.3f", result.latency.value(at: quantile) / 1e6) }
        lines.append(
            "\(result.client.rawValue) load=\(load): cancel→error p50 \(ms(0.5)) ms, p99 \(ms(0.99)) ms, max \(ms(1)) ms; "
                + String(
                    format: "%.1f s wall, client CPU %.1f s, server CPU %.1f s, %.0f connections opened; ",
                    result.wallSeconds, result.clientCPUSeconds, result.serverCPUSeconds, result.connectionsOpened)
                + "codes \(result.codes)")
    }
}
let csv = SummaryCSV.render(rows, runID: RunID.make())
if let out = arguments.value("out") {
    try csv.write(toFile: out, atomically: true, encoding: .utf8)
}
print(csv, terminator: "")
for line in lines { print(line) }
