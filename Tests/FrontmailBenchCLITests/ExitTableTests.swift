import Foundation
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// The one table of exit codes (`ExitTable`): every command's `--help` prints its row, the docs are
/// the same table, and every outcome it lists is made to happen here and exits with its code.
@Suite("exit codes: one table, and each outcome exits with its code")
struct ExitTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Outcomes made to happen elsewhere, with where: a signal cannot be sent to this test process.
    static let elsewhere: [String: String] = [
        "130": "scripts/hostile.sh: SIGINT, SIGTERM and SIGHUP in every mode (CI runs it)",
        "serve 0": "scripts/hostile.sh: serve stopped by each signal writes its ledger and exits 0",
    ]

    @Test("each command's --help prints its row of the table, and docs/exit-codes.md is the same table")
    func helpAndDocs() throws {
        let usages: [String: String] = [
            "run": RunCommand.usage, "tune": TuneCommand.usage, "explore": ExploreCommand.usage,
            "certify": CertifyCommand.usage, "merge": MergeCommand.usage, "report": ReportCommand.usage,
            "list": ListCommand.usage, "compare": CompareCommand.usage, "baseline": BaselineCommand.usage,
            "serve": ServeCommand.usage,
        ]
        #expect(Set(usages.keys) == Set(ExitTable.commands.map(\.name)))
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/exit-codes.md"), encoding: .utf8)
        for (name, outcomes) in ExitTable.commands {
            #expect(usages[name]?.contains(ExitTable.help(name)) == true, "\(name)")
            #expect(Set(outcomes.map(\.code)).count == outcomes.count, "\(name): a code given twice")
            for outcome in outcomes {
                let row = "| `\(name)` | \(outcome.code.rawValue) | \(outcome.meaning) |"
                #expect(docs.contains(row), "docs/exit-codes.md lacks \(row)")
            }
        }
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == ExitTable.commands.reduce(0) { $0 + $1.outcomes.count })
    }

    @Test("every outcome of every command, made to happen, exits with the table's code")
    func everyOutcome() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String, _ text: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let out = folder.appendingPathComponent("out").path
        let aFile = try file("a-file", "x")
        let missingFolder = folder.appendingPathComponent("none/deeper/x.csv").path
        let passing = try file(
            "ok.json",
            #"{"name": "ok", "load": {"type": "closed", "concurrency": 1, "sends": 2}, "assertions": ["send.ok == 2"]}"#
        )
        let failing = try file(
            "no.json",
            #"{"name": "no", "load": {"type": "closed", "concurrency": 1, "sends": 2}, "assertions": ["send.ok == 3"]}"#
        )
        let bad = try file("bad.json", #"{"name": "bad", "load": {"type": "closed", "concurrency": 0, "sends": 1}}"#)
        let garbage = try file("garbage.csv", "not,a\nsummary")
        let damaged = try file("x.shard-0-of-1.fmshard", "FMSHARD\nnot a part")
        // A run's CSV and a shard's part, for report, compare, baseline and merge.
        #expect(await RunCommand.run([passing, "--out", out, "--run-id", "R", "--no-progress"]) == .success)
        let runCSV = out + "/R-run.csv"
        let parts = folder.appendingPathComponent("parts").path
        for scenario in [passing, failing] {
            _ = await RunCommand.run([scenario, "--shard", "0/1", "--run-id", "S", "--out", parts, "--no-progress"])
        }
        let part = { (name: String) in parts + "/\(name).shard-0-of-1.fmshard" }
        let base = try CompareCommandTests.write(CompareCommandTests.baseline, "base.csv", in: folder)
        var slower = CompareCommandTests.baseline
        slower[0].value = 500
        var faster = CompareCommandTests.baseline
        faster[0].value = 2000
        let slow = try CompareCommandTests.write(slower, "slow.csv", in: folder)
        let fast = try CompareCommandTests.write(faster, "fast.csv", in: folder)
        let claim = try file("claim.json", #"{"name":"x","maxAttempts":99,"baseDelay":"1s","maxDelay":"2s"}"#)
        let clients = try file(
            "clients.json", #"{"clients":[{"command":"true","expectedFailures":["idempotency.key-on-every-request"]}]}"#
        )
        let skipped = try file("skipped.json", #"{"clients":[{"command":"true","requires":"no-such-program-here"}]}"#)
        let tune = try file(
            "t.json",
            #"{"name": "t", "base": {"load": {"type": "open", "policyTime": true, "rate": 5, "duration": "2s"}}, "environments": [{"name": "calm"}], "grid": {"maxRetries": [1]}, "seeds": 1}"#
        )
        let badTune = try file("bad-tune.json", #"{"name": "t"}"#)
        let badPlan = try file("plan.json", #"{"rules": [{"action": {"type": "nothing"}}]}"#)

        var made: [String: ExitCode] = [:]
        func outcome(_ command: String, _ code: ExitCode, _ run: () async -> ExitCode) async {
            let got = await run()
            #expect(got == code, "\(command) \(code.rawValue): exited \(got.rawValue)")
            made["\(command) \(code.rawValue)"] = got
        }
        await outcome("run", .success) { await RunCommand.run([passing, "--out", out, "--no-progress"]) }
        await outcome("run", .failure) { await RunCommand.run([failing, "--out", out, "--no-progress"]) }
        await outcome("run", .usage) { await RunCommand.run([passing, "--seed", "-1"]) }
        await outcome("run", .dataError) { await RunCommand.run([bad, "--out", out]) }
        await outcome("run", .software) { await RunCommand.run([passing, "--out", aFile, "--no-progress"]) }
        await outcome("tune", .success) { await TuneCommand.run([tune, "--out", out, "--no-progress"]) }
        await outcome("tune", .failure) {
            // A sweep whose cell saw a duplicate: the session the command ends with says 1.
            guard let file = try? TuneFile.load(file: tune), let policy = file.policies.first,
                let writer = try? ResultsWriter.claim(root: URL(fileURLWithPath: out), runID: "T")
            else { return .software }
            var cell = TuneCell(policy: policy, environment: file.environments[0])
            var figures = RunFigures()
            figures.sends = 10
            figures.started = 10
            figures.ok = 10
            figures.duplicates = 1
            cell.runs = [figures]
            return TuneSession(writer: writer).end(
                [TuneReport(tune: file, cells: [cell])], planned: 1, elapsed: 1, cancelled: false)
        }
        await outcome("tune", .usage) { await TuneCommand.run([tune, "--jobs", "0"]) }
        await outcome("tune", .dataError) { await TuneCommand.run([badTune, "--out", out]) }
        await outcome("tune", .software) { await TuneCommand.run([tune, "--out", aFile, "--no-progress"]) }
        await outcome("explore", .success) { await ExploreCommand.run(["--runs", "1", "--out", out, "--no-progress"]) }
        await outcome("explore", .failure) {
            await ExploreCommand.run([
                "--runs", "30", "--broken", "key-changing", "--stop-on-failure", "--out", out, "--no-progress",
            ])
        }
        await outcome("explore", .usage) { await ExploreCommand.run(["--runs", "0"]) }
        await outcome("explore", .software) {
            await ExploreCommand.run(["--runs", "1", "--out", aFile, "--no-progress"])
        }
        await outcome("certify", .success) {
            await CertifyCommand.run(["--clients", clients, "--cases", "1.1", "--out", out, "--no-progress"])
        }
        await outcome("certify", .failure) {
            await CertifyCommand.run(["--client", "true", "--cases", "1.1", "--out", out, "--no-progress"])
        }
        await outcome("certify", .usage) { await CertifyCommand.run(["--client", "true", "--jobs", "0"]) }
        await outcome("certify", .dataError) {
            await CertifyCommand.run(["--client", "true", "--policy", claim, "--out", out, "--no-progress"])
        }
        await outcome("certify", .software) {
            await CertifyCommand.run(["--clients", skipped, "--cases", "1.1", "--out", out, "--no-progress"])
        }
        await outcome("merge", .success) { MergeCommand.run([part("ok"), "--out", out]) }
        await outcome("merge", .failure) { MergeCommand.run([part("no"), "--out", out]) }
        await outcome("merge", .usage) { MergeCommand.run([]) }
        await outcome("merge", .dataError) { MergeCommand.run([damaged, "--out", out]) }
        await outcome("merge", .software) { MergeCommand.run([part("ok"), "--out", aFile]) }
        await outcome("report", .success) {
            ReportCommand.run([runCSV, "--out", folder.appendingPathComponent("r.html").path])
        }
        await outcome("report", .usage) { ReportCommand.run([]) }
        await outcome("report", .dataError) { ReportCommand.run([garbage]) }
        await outcome("report", .software) { ReportCommand.run([runCSV, "--out", missingFolder]) }
        await outcome("list", .success) { ListCommand.run([passing]) }
        await outcome("list", .usage) { ListCommand.run([folder.appendingPathComponent("none.json").path]) }
        await outcome("list", .dataError) { ListCommand.run([bad]) }
        await outcome("compare", .success) { CompareCommand.run([base, base]) }
        await outcome("compare", .regression) { CompareCommand.run([base, slow]) }
        await outcome("compare", .improvement) { CompareCommand.run([base, fast]) }
        await outcome("compare", .usage) { CompareCommand.run([base]) }
        await outcome("compare", .dataError) { CompareCommand.run([base, garbage]) }
        await outcome("compare", .software) { CompareCommand.run([base, base, "--summary-md", missingFolder]) }
        await outcome("baseline", .success) {
            BaselineCommand.run([base, base, base, "--out", folder.appendingPathComponent("b.csv").path])
        }
        await outcome("baseline", .usage) { BaselineCommand.run([base]) }
        await outcome("baseline", .dataError) {
            BaselineCommand.run([base, base, garbage, "--out", folder.appendingPathComponent("b2.csv").path])
        }
        await outcome("baseline", .software) { BaselineCommand.run([base, base, base, "--out", missingFolder]) }
        await outcome("serve", .usage) { ServeCommand.run(["--header-timeout", "0"]) }
        await outcome("serve", .dataError) { ServeCommand.run(["--plan", badPlan]) }
        await outcome("serve", .software) { ServeCommand.run(["--ledger", missingFolder]) }

        // Every outcome of the table was made to happen here, or is named with where it is.
        for (name, outcomes) in ExitTable.commands {
            for outcome in outcomes {
                let key = "\(name) \(outcome.code.rawValue)"
                let covered =
                    made[key] != nil || Self.elsewhere[key] != nil || Self.elsewhere["\(outcome.code.rawValue)"] != nil
                #expect(covered, "no test makes \(key) (\(outcome.meaning)) happen")
            }
        }
    }
}
