import Foundation
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// `compare` and `baseline` on the command line: their exit codes, and the files they refuse.
@Suite("compare and baseline: the commands")
struct CompareCommandTests {
    static func row(
        _ probe: String, _ metric: String, _ statistic: String, _ value: Double, scenario: String = "encoder"
    ) -> SummaryRow {
        SummaryRow(scenario: scenario, probe: probe, metric: metric, statistic: statistic, value: value, unit: "u")
    }

    /// Scenario timings (judged by the global tolerance), an allocation count, a size and a defect count.
    static let baseline = [
        row("send", "throughput", "value", 1000, scenario: "s"),
        row("send", "latency", "p99", 10, scenario: "s"),
        row("small_form", "frontmail_value", "allocs_per_op", 3),
        row("small_form", "frontmail_value", "output_bytes", 400),
        row("idempotency", "duplicates", "value", 0, scenario: "brownout"),
    ]

    static func folder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `rows` as a summary CSV named `name` in `directory`; returns its path.
    static func write(_ rows: [SummaryRow], _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try SummaryCSV.render(rows, runID: "r").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("the command: exit codes 0, 2, 4, 64 and 65")
    func command() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ rows: [SummaryRow], _ name: String) throws -> String { try Self.write(rows, name, in: directory) }
        let base = try write(Self.baseline, "base.csv")
        var slower = Self.baseline
        slower[0].value = 500
        var faster = Self.baseline
        faster[0].value = 2000
        #expect(CompareCommand.run([base, base]) == .success)
        #expect(CompareCommand.run([base, try write(slower, "slow.csv")]) == .regression)
        #expect(CompareCommand.run([base, try write(faster, "fast.csv")]) == .improvement)
        #expect(CompareCommand.run([base, try write(slower, "slow2.csv"), "--tolerance", "60%"]) == .regression)
        #expect(CompareCommand.run([base, try write(slower, "slow3.csv"), "--tolerance", "100%"]) == .success)
        #expect(CompareCommand.run([base]) == .usage)
        #expect(CompareCommand.run([base, base, "--tolerance", "x=y"]) == .usage)
        let garbage = directory.appendingPathComponent("garbage.csv").path
        try "not,a,summary\n1,2,3\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(CompareCommand.run([base, garbage]) == .dataError)
        #expect(CompareCommand.run([base, directory.appendingPathComponent("none.csv").path]) == .dataError)
    }

    @Test("a repeated row is refused (exit 65), so a second copy cannot hide a strict regression")
    func repeatedRows() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ rows: [SummaryRow], _ name: String) throws -> String { try Self.write(rows, name, in: directory) }
        let clean = Self.row("idempotency", "duplicates", "value", 0)
        let base = try write([clean], "base.csv")
        var regressed = clean
        regressed.value = 3
        // The regression alone is caught; followed by a clean copy of the same row it is refused,
        // not judged by whichever copy comes last.
        #expect(CompareCommand.run([base, try write([regressed], "bad.csv")]) == .regression)
        #expect(CompareCommand.run([base, try write([regressed, clean], "hidden.csv")]) == .dataError)
        #expect(CompareCommand.run([try write([clean, clean], "twice.csv"), base]) == .dataError)
        let repeated = try write([clean, regressed], "run.csv")
        #expect(BaselineCommand.run([repeated, base, base, "--out", directory.path + "/b.csv"]) == .dataError)
        // The same key in two scenarios is two rows.
        var other = clean
        other.scenario = "other"
        #expect(CompareCommand.run([base, try write([clean, other], "two.csv")]) == .success)
        // Rows shuffled and one of them copied, at random: always refused, naming the line.
        var random = SystemRandomNumberGenerator()
        for trial in 0..<50 {
            var rows = Self.baseline.shuffled(using: &random)
            let copy = rows.randomElement(using: &random)!
            rows.insert(copy, at: Int.random(in: 0...rows.count, using: &random))
            let text = SummaryCSV.render(rows, runID: "r")
            #expect(throws: CSVError.self, "trial \(trial)") { try SummaryCSV.parse(text, unique: true) }
            #expect((try? SummaryCSV.parse(text))?.rows.count == rows.count)
        }
    }

    /// A benchmark run's rows: the writer's ratio against JSONEncoder with its spread, and its speed.
    static func benchmarkRun(ratio: Double) -> [SummaryRow] {
        [("ratio_vs_json_encoder", ratio), ("spread_vs_json_encoder", 0.01), ("ops_per_s", 1e6), ("p50_us", 1)].map {
            SummaryRow(
                scenario: "encoder", probe: "small_form", metric: "frontmail_value", statistic: $0.0, value: $0.1,
                unit: "x")
        }
    }

    @Test("the baseline command: at least three runs, an output, readable files")
    func baselineCommand() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try (0..<3).map { index in
            let path = directory.appendingPathComponent("run\(index).csv").path
            try SummaryCSV.render(Self.benchmarkRun(ratio: 10 + Double(index)), runID: "r\(index)").write(
                toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let out = directory.appendingPathComponent("baseline.csv").path
        #expect(BaselineCommand.run(paths + ["--out", out]) == .success)
        let written = try SummaryCSV.parse(String(contentsOfFile: out, encoding: .utf8)).rows
        #expect(written.first { $0.statistic == "ratio_vs_json_encoder" }?.value == 11)
        #expect(BaselineCommand.run(Array(paths.prefix(2)) + ["--out", out]) == .usage)
        #expect(BaselineCommand.run(paths) == .usage)
        #expect(
            BaselineCommand.run(paths + [directory.appendingPathComponent("none.csv").path, "--out", out]) == .dataError
        )
    }
}

/// Verdicts and inputs `compare`, `baseline` and `report` got wrong under a hostile user.
@Suite("compare, baseline and report: interrupted runs, impossible rates, empty runs, hostile keys")
struct GateHardeningTests {
    static let interrupted = SummaryRow(
        scenario: "s", probe: "run", metric: "interrupted", statistic: "value", value: 1, unit: "flag")

    @Test("an interrupted run fails compare even against an interrupted baseline, and makes no baseline")
    func interruptedRuns() throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = CompareCommandTests.baseline + [Self.interrupted]
        let comparison = Comparison(baseline: rows, current: rows, tolerance: 0.05, perMetric: [])
        #expect(comparison.lines.contains { $0.key == "s.run.interrupted.value" && $0.verdict == .regression })
        let clean = Comparison(
            baseline: CompareCommandTests.baseline, current: CompareCommandTests.baseline, tolerance: 0.05,
            perMetric: [])
        #expect(!clean.lines.contains { $0.verdict == .regression })
        let partial = try CompareCommandTests.write(rows, "partial.csv", in: directory)
        let whole = try CompareCommandTests.write(CompareCommandTests.baseline, "whole.csv", in: directory)
        #expect(CompareCommand.run([partial, partial]) == .regression)
        let out = directory.appendingPathComponent("baseline.csv").path
        #expect(BaselineCommand.run([whole, whole, partial, "--out", out]) == .dataError)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(BaselineCommand.run([whole, whole, whole, "--out", out]) == .success)
    }

    @Test("a success rate outside 0-1 (inf too) is a damaged file; an empty tolerance pattern is a usage error")
    func impossibleValues() throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var rows = CompareCommandTests.baseline
        rows.append(
            SummaryRow(
                scenario: "s", probe: "send", metric: "success_rate", statistic: "value", value: 1.5, unit: "ratio"))
        let impossible = try CompareCommandTests.write(rows, "impossible.csv", in: directory)
        let whole = try CompareCommandTests.write(CompareCommandTests.baseline, "whole.csv", in: directory)
        #expect(CompareCommand.run([whole, impossible]) == .dataError)
        #expect(throws: CSVError.self) { try SummaryCSV.parse(try String(contentsOfFile: impossible, encoding: .utf8)) }
        for value in [Double.infinity, -Double.infinity, -0.5] {
            rows[rows.count - 1].value = value
            let damaged = try CompareCommandTests.write(rows, "damaged.csv", in: directory)
            #expect(CompareCommand.run([whole, damaged]) == .dataError, "\(value)")
        }
        rows[rows.count - 1].value = 1
        let possible = try CompareCommandTests.write(rows, "possible.csv", in: directory)
        #expect(CompareCommand.run([whole, possible]) != .dataError)
        #expect(CompareCommand.run([whole, whole, "--tolerance", "=5%"]) == .usage)
    }

    @Test("compare --summary-md writes a hostile scenario name and file name as text, not markup")
    func escapedMarkdown() throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let hostile = SummaryRow(
            scenario: "x|<img src=y>", probe: "idempotency", metric: "duplicates", statistic: "value", value: 3,
            unit: "sends")
        let before = try CompareCommandTests.write([], "a`b.csv", in: directory)
        let after = try CompareCommandTests.write([hostile], "after.csv", in: directory)
        let summary = directory.appendingPathComponent("summary.md").path
        #expect(CompareCommand.run([before, after, "--summary-md", summary]) == .regression)
        let text = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(text.contains(#"x\|\<img src=y\>"#))
        #expect(!text.replacingOccurrences(of: "\\<", with: "").contains("<"))
        // A file name with a backtick is a code span fenced with two.
        #expect(text.contains("``" + before + "``"))
        #expect(MarkdownText.key("send.success_rate") == "send.success_rate")
        #expect(MarkdownText.key("a._b_") == #"a.\_b\_"#)
    }

    @Test("report refuses a run with no rows; serve a --host that is no address; run lists no internal option")
    func smallRefusals() throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = try CompareCommandTests.write([], "empty-run.csv", in: directory)
        #expect(ReportCommand.run([empty, "--out", directory.appendingPathComponent("r.html").path]) == .dataError)
        #expect(ServeCommand.run(["--host", "127.999.0.1"]) == .usage)
        #expect(ServeCommand.isAddress("127.0.0.1") && ServeCommand.isAddress("::1") && !ServeCommand.isAddress("::g"))
        do {
            _ = try Arguments(["s.json", "--bogus"], spec: RunCommand.spec)
            Issue.record("--bogus accepted")
        } catch {
            #expect(!error.message.contains("--progress-lines") && !error.message.contains("--same-process"))
            #expect(error.message.contains("--workers"))
        }
        // Every command that can fail at a write says so in its exit codes.
        for usage in [
            RunCommand.usage, MergeCommand.usage, CompareCommand.usage, TuneCommand.usage, ServeCommand.usage,
            ReportCommand.usage, BaselineCommand.usage,
        ] {
            #expect(usage.contains("70"), "\(usage.prefix(60))")
        }
    }

    @Test("tune --check reads and checks a tune file and runs nothing; a bad one is 65")
    func tuneCheck() async throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("never")
        #expect(await TuneCommand.run(["tune/retry-defaults.json", "--check", "--out", out.path]) == .success)
        #expect(await TuneCommand.run(["tune/retry-storms.json", "--check", "--quick", "--out", out.path]) == .success)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let bad = directory.appendingPathComponent("bad.json")
        try #"{"name": "b", "base": {"name": "x"}, "environments": [], "grid": {}}"#.write(
            to: bad, atomically: true, encoding: .utf8)
        #expect(await TuneCommand.run([bad.path, "--check"]) == .dataError)
    }

    @Test(
        "tune with storms files: the pair is checked; a second file without a map, two files of one name or five files are 64"
    )
    func tuneStormsArguments() async throws {
        let directory = try CompareCommandTests.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("never")
        let pair = ["tune/retry-defaults.json", "tune/retry-storms.json"]
        #expect(await TuneCommand.run(pair + ["--check", "--out", out.path]) == .success)
        #expect(await TuneCommand.run(pair.reversed() + ["--check"]) == .usage)
        #expect(await TuneCommand.run(["tune/retry-storms.json", "tune/retry-storms.json", "--check"]) == .usage)
        #expect(await TuneCommand.run(pair + pair + ["tune/retry-storms.json", "--check"]) == .usage)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
