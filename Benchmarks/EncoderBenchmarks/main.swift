import BenchKit
import Foundation
import Frontmail
import LoadKit

// Encoder throughput: the SDK's FrontmailValue writer and Encodable path against JSONEncoder
// (sorted keys, ISO-8601 dates) and JSONSerialization on the same payloads, the SDK's base64
// against Data.base64EncodedString(), and memcpy of the same output size as the physical limit.
// Every encoder's output is decoded and compared before anything is timed. The workloads of a group
// are timed interleaved (docs/benchmarks.md): each ratio comes with the spread of its rounds, and a
// copy of the small-form writer made 1.3x slower is the gate's positive control.
//
//   swift run -c release EncoderBenchmarks [--quick] [--out FILE.csv] [--profile GROUP/WORKLOAD]
//   (`--profile attachment_1mb/sdk_base64`: that workload alone for 20 s, for `perf record`)

let arguments = benchmarkArguments(
    tool: "EncoderBenchmarks", usage: "usage: EncoderBenchmarks [--quick] [--out FILE.csv] [--profile GROUP/WORKLOAD]")
var runner: InterleavedRunner = arguments.flag("quick") ? .quick : .full
runner.profile = checkedProfile(arguments, tool: "EncoderBenchmarks", groups: EncoderSuite.groups)

do {
    let results = try await EncoderSuite.run(runner)
    try report(
        benchmark: "encoder", rows: results.rows, checks: results.checks, controls: results.controls,
        allocationTargets: results.budgets, out: arguments.value("out"))
} catch {
    FileHandle.standardError.write(Data("EncoderBenchmarks: \(error)\n".utf8))
    exit(1)
}
